#!/bin/sh
# Makes an API key on this machine for the gateway (docs/operations/authentication.md): a random
# key, printed once on standard output and stored nowhere, and the api-keys.json that holds its
# SHA-256 with its name and scopes, which compose's secret (deploy/api-keys.json) or kustomize's
# secretGenerator (deploy/kubernetes/api-keys/api-keys.json) reads. Both files are git-ignored.
#   deploy/make-api-key.sh [folder]   (default: this script's folder, for deploy/compose.yaml)
#   deploy/make-api-key.sh deploy/kubernetes/api-keys
# KEY_NAME (default admin) names the key, as the access log's principal; KEY_SCOPES (default:
# every scope) is the space-separated list of its scopes. An existing api-keys.json is never
# replaced: its keys would stop working. Remove it first, or add an entry to it by hand.
set -eu
out=${1:-$(dirname "$0")}
name=${KEY_NAME:-admin}
scopes=${KEY_SCOPES:-jobs:read jobs:write nodes:read nodes:write events:read metrics:read}
file="$out/api-keys.json"
if [ -e "$file" ]; then
  echo "$file exists: remove it to make a new key (its keys then stop working), or add an entry by hand" >&2
  exit 1
fi
case $name in *[!A-Za-z0-9._@-]*|'') echo "KEY_NAME: letters, digits and . _ @ - only" >&2; exit 2;; esac
key=$(openssl rand -hex 32)
sha256=$(printf %s "$key" | openssl dgst -sha256 -r | cut -d' ' -f1)
list=
for scope in $scopes; do list="$list${list:+, }\"$scope\""; done
# The key never touches the disk. The file holds its digest only, so it may be readable by all:
# compose bind-mounts it as it is, and the container's user (uid 1000) must read it.
printf '[\n  { "name": "%s", "sha256": "%s", "scopes": [%s] }\n]\n' "$name" "$sha256" "$list" > "$file"
echo "wrote $file: key \"$name\" with scopes $scopes. The key, shown this once (send it as X-API-Key):" >&2
printf '%s\n' "$key"
