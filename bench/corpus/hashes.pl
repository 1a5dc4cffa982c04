# hashes.pl N — hash-heavy Perl: a word count of generated text, a hash of
# arrays of records, keys sorted by value, strings split, joined and
# substituted. N rounds; prints a checksum.
use strict;
use warnings;

my $n = $ARGV[0] // 20;
my $seed = 1;
sub rnd { $seed = ($seed * 1103515245 + 12345) % 2147483648; return $seed % $_[0]; }
my @words = map { join "", map { chr(97 + rnd(26)) } 1 .. (3 + rnd(8)) } 1 .. 2000;
my $total = 0;
for my $r (1 .. $n) {
  my (%count, %by_len);
  my $text = join " ", map { $words[rnd(scalar @words)] } 1 .. 40000;
  for my $w (split / /, $text) {
    $count{$w}++;
    push @{ $by_len{length $w} }, { word => $w, round => $r };
  }
  my @top = (sort { $count{$b} <=> $count{$a} || $a cmp $b } keys %count)[0 .. 99];
  $total += scalar(@top) + scalar(keys %by_len);
  for my $len (keys %by_len) {
    my $list = delete $by_len{$len};
    $total += scalar @$list;
  }
  (my $copy = $text) =~ s/([aeiou])/uc $1/ge;
  $total += length $copy;
}
print "$total\n";
