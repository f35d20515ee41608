#!/bin/sh
# Regenerates the test Sigstore in dev/safetensors/signing/testing/sigstore/ (TestSigstore's): run from this folder
# with OpenSSL 3. A Fulcio-like CA, a Rekor-like log key and a timestamp authority, so the tests exercise the whole
# keyless path (chain, identity, issuer, log entry, signed entry timestamp, inclusion proof, checkpoint, RFC 3161
# timestamp) offline with real cryptography; TestSigstore writes the trusted root and the bundles from these files.
# Test material only: the private keys are public.
#
#   fulcio-root    P-384, self-signed CA
#   fulcio-int     P-384 CA issued by fulcio-root (Fulcio's intermediate)
#   leaf-email     P-256 signing certificate issued by fulcio-int, valid ten minutes from 2025-03-01 12:00 UTC:
#                  SAN email alice@example.com, issuer https://issuer.example.com in both Fulcio extensions
#                  (1.3.6.1.4.1.57264.1.1 raw, .1.8 UTF8String), extendedKeyUsage codeSigning
#   leaf-uri       the same for a workload: SAN URI https://github.com/example/models/.github/workflows/sign.yml@refs/heads/main,
#                  issuer https://token.actions.githubusercontent.com in the deprecated extension .1.1 only
#   rekor          P-256 log key
#   tsa-root       P-384, self-signed timestamping root
#   tsa            P-256 timestamping certificate issued by tsa-root, extendedKeyUsage timeStamping (critical)
set -eu
cd "$(dirname "$0")/dev/safetensors/signing/testing/sigstore"

key() { openssl genpkey -algorithm EC -pkeyopt "ec_paramgen_curve:$2" -out "$1-key.pem"; }
hex() { printf '%s' "$1" | od -An -tx1 | tr -d ' \n'; }

# `openssl ca` is the command that takes a start and an end date: the CAs are valid from 2024 (before the
# signatures the tests date in 2025), the signing certificates for Fulcio's ten minutes
rm -rf ca && mkdir ca && touch ca/index.txt && echo 1000 > ca/serial
cat > ca.cnf <<CNF
[ca]
default_ca = test
[test]
dir = ca
database = ca/index.txt
serial = ca/serial
new_certs_dir = ca
default_md = sha384
policy = anything
unique_subject = no
copy_extensions = none
[anything]
organizationName = optional
commonName = optional
[root]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
[intermediate]
basicConstraints = critical,CA:TRUE,pathlen:0
keyUsage = critical,keyCertSign,cRLSign
extendedKeyUsage = codeSigning
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
[email]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = codeSigning
subjectAltName = critical,email:alice@example.com
authorityKeyIdentifier = keyid
1.3.6.1.4.1.57264.1.1 = DER:$(hex https://issuer.example.com)
1.3.6.1.4.1.57264.1.8 = ASN1:UTF8String:https://issuer.example.com
[uri]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = codeSigning
subjectAltName = critical,URI:https://github.com/example/models/.github/workflows/sign.yml@refs/heads/main
authorityKeyIdentifier = keyid
1.3.6.1.4.1.57264.1.1 = DER:$(hex https://token.actions.githubusercontent.com)
[tsa]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = critical,timeStamping
authorityKeyIdentifier = keyid
CNF

# issue NAME CURVE SUBJECT EXTENSIONS ISSUER|self START END
issue() {
    key "$1" "$2"
    openssl req -new -key "$1-key.pem" -subj "$3" -out "$1.csr"
    if [ "$5" = self ]; then
        signer="-selfsign -keyfile $1-key.pem"
    else
        signer="-cert $5.pem -keyfile $5-key.pem"
    fi
    # shellcheck disable=SC2086
    openssl ca -batch -config ca.cnf $signer -extensions "$4" -in "$1.csr" -startdate "$6" -enddate "$7" \
        -notext -out "$1.pem"
}

issue fulcio-root P-384 "/O=safetensors test/CN=test fulcio root" root self 20240101000000Z 21240101000000Z
issue fulcio-int P-384 "/O=safetensors test/CN=test fulcio intermediate" intermediate fulcio-root \
    20240101000000Z 21240101000000Z
issue leaf-email P-256 "/" email fulcio-int 20250301120000Z 20250301121000Z
issue leaf-uri P-256 "/" uri fulcio-int 20250301120000Z 20250301121000Z
issue tsa-root P-384 "/O=safetensors test/CN=test tsa root" root self 20240101000000Z 21240101000000Z
issue tsa P-256 "/O=safetensors test/CN=test tsa" tsa tsa-root 20240101000000Z 21240101000000Z

key rekor P-256
openssl pkey -in rekor-key.pem -pubout -out rekor-pub.pem

rm -rf ca ca.cnf ./*.csr fulcio-root-key.pem fulcio-int-key.pem tsa-root-key.pem
