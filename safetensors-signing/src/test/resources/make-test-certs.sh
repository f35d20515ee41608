#!/bin/sh
# Regenerates the test PKI in pki/: run from this folder with OpenSSL 3. The JDK has no public API that issues
# certificates, so the tests read these files. They are test material only: the private keys are public.
#
#   root-ca       P-384, self-signed, trusted by the tests
#   int-ca        P-256, issued by root-ca
#   signer        P-256 leaf issued by int-ca: keyUsage digitalSignature, extendedKeyUsage codeSigning;
#                 its key is written both as PKCS#8 (signer-key.pem) and as SEC1 (signer-key-sec1.pem)
#   no-sign       P-256 leaf issued by int-ca whose key usage forbids signing (keyAgreement only)
#   other-ca      P-256, self-signed, trusted by nobody
#   other-signer  P-256 leaf issued by other-ca
#   self-signed   P-256, self-signed signing certificate (keyUsage digitalSignature), its own trust anchor
set -eu
cd "$(dirname "$0")/pki"
days=36500

key() { openssl genpkey -algorithm EC -pkeyopt "ec_paramgen_curve:$2" -out "$1-key.pem"; }

ext() {
    printf '%s\n' "$1" > ext.cnf
}

key root-ca P-384
openssl req -new -x509 -key root-ca-key.pem -subj "/CN=safetensors-signing test root CA" -days $days \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" -out root-ca.pem

key int-ca P-256
openssl req -new -key int-ca-key.pem -subj "/CN=safetensors-signing test intermediate CA" -out int-ca.csr
ext "basicConstraints=critical,CA:TRUE,pathlen:0
keyUsage=critical,keyCertSign,cRLSign"
openssl x509 -req -in int-ca.csr -CA root-ca.pem -CAkey root-ca-key.pem -CAcreateserial -days $days \
    -extfile ext.cnf -out int-ca.pem

leaf() {
    key "$1" P-256
    openssl req -new -key "$1-key.pem" -subj "/CN=$3" -out "$1.csr"
    ext "$4"
    openssl x509 -req -in "$1.csr" -CA "$2.pem" -CAkey "$2-key.pem" -CAcreateserial -days $days \
        -extfile ext.cnf -out "$1.pem"
}

leaf signer int-ca "safetensors-signing test signer" "basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=codeSigning"
openssl ec -in signer-key.pem -out signer-key-sec1.pem

leaf no-sign int-ca "safetensors-signing test key-agreement only" "basicConstraints=CA:FALSE
keyUsage=critical,keyAgreement"

key other-ca P-256
openssl req -new -x509 -key other-ca-key.pem -subj "/CN=safetensors-signing untrusted CA" -days $days \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign" -out other-ca.pem
leaf other-signer other-ca "safetensors-signing untrusted signer" "basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature"

key self-signed P-256
openssl req -new -x509 -key self-signed-key.pem -subj "/CN=safetensors-signing self-signed signer" -days $days \
    -addext "basicConstraints=critical,CA:FALSE" -addext "keyUsage=critical,digitalSignature" -out self-signed.pem

openssl pkey -in signer-key.pem -pubout -out signer-pub.pem
rm -f ./*.csr ./*.srl ext.cnf root-ca-key.pem other-ca-key.pem int-ca-key.pem
