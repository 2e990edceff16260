#!/usr/bin/env bash
# System tools pier's tests drive for real (not npm packages). Installs what is
# missing with apt-get when run as root; otherwise says what to install.
set -euo pipefail

need=()
command -v tmux >/dev/null 2>&1 || need+=(tmux)
# The chamber's browser tests drive Debian's chromium through playwright-core (no browser download).
command -v chromium >/dev/null 2>&1 || need+=(chromium)
# Native plugins (kit/rust, examples/native, test/fixtures/native) build offline against Debian's packaged
# crates: .cargo/config.toml replaces crates.io with this directory registry.
compgen -G "/usr/share/cargo/registry/serde_json-*" >/dev/null || need+=(librust-serde-json-dev)

if [ ${#need[@]} -eq 0 ]; then
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "pier tests need: ${need[*]} (install with: sudo apt-get install -y ${need[*]})" >&2
	exit 1
fi
echo "installing system packages: ${need[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
