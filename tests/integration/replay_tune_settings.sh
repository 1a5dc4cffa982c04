#!/usr/bin/env bash
# Every built-in setting of replay --tune takes effect: each is set as
# `hatrace replay --tune --list` says it is, and the allocator itself reports
# the value (and another value without it), so no setting of the grid is
# ignored without a word:
#   glibc     ld.so --list-tunables (what ld.so parsed from GLIBC_TUNABLES); a
#             value 0 reads the same as unset there, so tune_probe measures it
#             (tcache_count: freed blocks the thread cache keeps)
#   jemalloc  mallctl("opt.KEY") (tune_probe), and no "Invalid conf pair"
#   tcmalloc  MallocExtension_GetNumericProperty and the release-rate flag (tune_probe)
#   mimalloc  its own list of options with MIMALLOC_VERBOSE=1
# A key the allocator would ignore is refused by hatrace (exit 2).
. "$(dirname "$0")/record_lib.inc"
[ -x "$HATRACE" ] || { echo "hatrace not built"; exit 77; }
probe=$BUILD/workloads/tune_probe
[ -x "$probe" ] || { echo "workload tune_probe not built"; exit 77; }
ldso=$(ldd "$probe" | awk '/ld-linux|\/ld[.-]/ { print $1; exit }')
[ -x "$ldso" ] || { echo "no ld.so found"; exit 77; }
declare -A lib=([jemalloc]=libjemalloc.so.2 [tcmalloc]=libtcmalloc_minimal.so.4 [mimalloc]=libmimalloc.so.2)

# what the allocator says KEY is, with the variables $2 (may be empty)
readback() {  # ALLOC KEY ENV...
  local alloc=$1 key=$2
  shift 2
  case $alloc in
    glibc)
      local v
      v=$(env "$@" "$ldso" --list-tunables | awk -v k="glibc.malloc.$key:" '$1 == k { print $2 }')
      if [ "$((v))" != 0 ]; then echo $((v))
      else env "$@" "$probe" | sed -n "s/^$key=//p" | grep . || echo unset; fi ;;
    mimalloc)
      env LD_PRELOAD="${lib[$alloc]}" MIMALLOC_VERBOSE=1 "$@" "$probe" 2>&1 |
        sed -n "s/^mimalloc: option '$key': //p" ;;
    *)
      env LD_PRELOAD="${lib[$alloc]}" "$@" "$probe" 2>"$W/probe.err" | sed -n "s/^$key=//p"
      ! grep -q . "$W/probe.err" || fail "$alloc $key: the allocator complained: $(cat "$W/probe.err")" ;;
  esac
}

checked=0
tuned=""
for alloc in glibc jemalloc tcmalloc mimalloc; do
  "$HATRACE" replay --tune --list --allocator $alloc >"$W/list" 2>"$W/list.err" || {
    grep -q "not found" "$W/list.err" && { echo "$alloc not installed: skipped"; continue; }
    fail "--list $alloc: $(cat "$W/list.err")"
  }
  tuned="$tuned $alloc"
  while IFS=$'\t' read -r a label envline; do
    [ "$label" = default ] && { [ -z "$envline" ] || fail "$a default sets $envline"; continue; }
    read -ra vars <<<"$envline"
    IFS=, read -ra pairs <<<"$label"
    for pair in "${pairs[@]}"; do
      key=${pair%%=*} want=${pair#*=}
      got=$(readback "$a" "$key" "${vars[@]}")
      dflt=$(readback "$a" "$key")
      [ -n "$got" ] || fail "$a $label: no read-back of $key"
      [ "$got" = "$want" ] || fail "$a $label ($envline): the allocator reports $key=$got"
      [ "$dflt" != "$want" ] || fail "$a $label: $key is $dflt without the setting too: the check proves nothing"
      echo "$a $label: $key=$got (default $dflt)"
      checked=$((checked + 1))
    done
  done <"$W/list"
done
[ "$checked" -gt 0 ] || fail "no setting checked"

# a key the allocator of Debian 12 would not read is refused, not run
for bad in mimalloc:purge_delay=0 glibc:arena_maximum=1 tcmalloc:release=1 jemalloc:; do
  "$HATRACE" replay --tune --list --setting "$bad" >/dev/null 2>"$W/bad.err"
  rc=$?
  case $bad in
    jemalloc:) [ $rc = 0 ] || fail "$bad (the defaults) refused: $(cat "$W/bad.err")" ;;
    *) [ $rc = 2 ] && grep -q "would ignore it" "$W/bad.err" || fail "$bad: exit $rc: $(cat "$W/bad.err")" ;;
  esac
done
echo "replay_tune_settings: ok ($checked settings read back from$tuned)"
