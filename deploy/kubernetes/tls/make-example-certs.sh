#!/bin/sh
# Throwaway TLS material for trying deploy/kubernetes: a CA, the reference Manager's server
# certificate (for its Service's names in namespace "norsk") and the gateway's client
# certificate, both signed by that CA. Use your own CA's in production.
#   deploy/kubernetes/tls/make-example-certs.sh [folder]   (default: this script's folder)
set -eu
out=${1:-$(dirname "$0")}
days=${DAYS:-365}
cd "$out"
ec="-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
openssl req -x509 $ec -days "$days" -subj "/CN=norsk-manager example CA" \
  -keyout ca.key -out ca.crt -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
sign() { # name, subject, extensions
  openssl req $ec -subj "$2" -keyout "$1.key" -out "$1.csr" 2>/dev/null
  printf '%s\n' "$3" > "$1.ext"
  openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days "$days" -extfile "$1.ext" -out "$1.crt" 2>/dev/null
  rm "$1.csr" "$1.ext"
}
sign manager "/CN=norsk-reference-manager" \
  "subjectAltName=DNS:norsk-reference-manager,DNS:norsk-reference-manager.norsk,DNS:norsk-reference-manager.norsk.svc,DNS:norsk-reference-manager.norsk.svc.cluster.local
extendedKeyUsage=serverAuth"
sign gateway "/CN=norsk-manager-gateway" "extendedKeyUsage=clientAuth"
rm -f ca.srl
echo "wrote ca.crt, manager.crt, manager.key, gateway.crt, gateway.key in $out (ca.key too: keep it out of the cluster)"
