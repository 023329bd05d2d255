#!/usr/bin/env perl
# Verifies a delivery of the Rewards API's webhooks (docs/webhooks.md, Request format and signature).
# Perl 5.10 or later, core modules only. Run as a check:
#   WEBHOOK_SECRET=whsec_... perl verify-webhook.pl "<X-Webhook-Timestamp>" "<X-Webhook-Signature>" < raw-body
use strict;
use warnings;
use Digest::SHA qw(hmac_sha256_hex);

use constant TOLERANCE_SECONDS => 300;

# True when one `v1=` value of the X-Webhook-Signature header is the HMAC-SHA256 of
# `<timestamp>.<raw body>` keyed with the endpoint's secret (`whsec_...`, all of it), and the
# timestamp is within five minutes of now. $raw_body is the body's bytes as received, never JSON
# decoded and encoded again.
sub verify_webhook {
    my ($secret, $timestamp, $signature_header, $raw_body, $now) = @_;
    $now = time unless defined $now;
    return 0 unless defined $timestamp && $timestamp =~ /\A[0-9]{1,12}\z/;
    return 0 if abs($now - $timestamp) > TOLERANCE_SECONDS;
    my $expected = hmac_sha256_hex("$timestamp.$raw_body", $secret);
    # During a secret rotation the header carries two signatures, `v1=<new> v1=<old>`: either may match.
    my $matched = 0;
    for my $part (split / /, $signature_header // '') {
        $matched = 1 if $part =~ /\Av1=(.*)\z/s && equal_in_constant_time($1, $expected);
    }
    return $matched;
}

# Compares every byte whatever the first difference, so the time taken tells nothing about the secret.
sub equal_in_constant_time {
    my ($given, $expected) = @_;
    return 0 unless length($given) == length($expected);
    my $difference = 0;
    $difference |= ord(substr($given, $_, 1)) ^ ord(substr($expected, $_, 1)) for 0 .. length($expected) - 1;
    return $difference == 0;
}

unless (caller) {
    binmode STDIN;
    my $raw_body = do { local $/; <STDIN> };
    $raw_body = '' unless defined $raw_body;
    my $ok = verify_webhook($ENV{WEBHOOK_SECRET} // '', $ARGV[0] // '', $ARGV[1] // '', $raw_body);
    print $ok ? "verified\n" : "rejected\n";
    exit($ok ? 0 : 1);
}

1;
