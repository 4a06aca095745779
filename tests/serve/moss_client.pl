#!/usr/bin/perl
# A MOSS client speaking the protocol the way moss.pl does: the declared
# size of a file is the sum of its line lengths in bytes, whitespace in a
# file name becomes `_`, and the answer to `query` is printed.
#   moss_client.pl -s HOST -p PORT -u USERID -l LANG [-d] [-m N] [-c TEXT] [-b BASE]... FILE...
use strict;
use warnings;
use IO::Socket::INET;

my ($server, $port, $user, $lang, $dir, $maxmatches, $comment) =
  ('127.0.0.1', 7690, undef, 'c', 0, 10, '');
my @base;
while (@ARGV && $ARGV[0] =~ /^-/) {
    my $flag = shift @ARGV;
    if    ($flag eq '-s') { $server = shift @ARGV }
    elsif ($flag eq '-p') { $port = shift @ARGV }
    elsif ($flag eq '-u') { $user = shift @ARGV }
    elsif ($flag eq '-l') { $lang = shift @ARGV }
    elsif ($flag eq '-d') { $dir = 1 }
    elsif ($flag eq '-m') { $maxmatches = shift @ARGV }
    elsif ($flag eq '-c') { $comment = shift @ARGV }
    elsif ($flag eq '-b') { push @base, shift @ARGV }
    else { die "unknown option $flag\n" }
}
die "no user id (-u)\n" unless defined $user;
my $sock = IO::Socket::INET->new(PeerAddr => $server, PeerPort => $port, Proto => 'tcp')
  or die "Could not connect to server $server: $!\n";
$sock->autoflush(1);
print $sock "moss $user\n";
print $sock "directory $dir\n";
print $sock "X 0\n";
print $sock "maxmatches $maxmatches\n";
print $sock "show 250\n";
print $sock "language $lang\n";
my $answer = <$sock>;
die "no answer to the language line\n" unless defined $answer;
chomp $answer;
if ($answer eq 'no') {
    print $sock "end\n";
    die "Unrecognized language $lang.\n";
}

sub upload {
    my ($file, $id) = @_;
    my $size = 0;
    open(my $in, '<', $file) or die "cannot read $file: $!\n";
    while (<$in>) { $size += length($_) }
    close($in);
    (my $name = $file) =~ s/\s/_/g;
    print $sock "file $id $lang $size $name\n";
    open($in, '<', $file) or die "cannot read $file: $!\n";
    while (<$in>) { print $sock $_ }
    close($in);
}

upload($_, 0) for @base;
my $id = 1;
upload($_, $id++) for @ARGV;
print $sock "query 0 $comment\n";
my $url = <$sock>;
print $sock "end\n";
close($sock);
print defined $url ? $url : "Error: the server closed the connection without an answer\n";
