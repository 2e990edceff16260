#!/usr/bin/env bash
# System tools pier's tests drive for real (not npm packages). Installs what is
# missing with apt-get when run as root; otherwise says what to install.
set -euo pipefail

need=()
command -v tmux >/dev/null 2>&1 || need+=(tmux)
# The chamber's browser tests drive Debian's chromium through playwright-core (no browser download).
command -v chromium >/dev/null 2>&1 || need+=(chromium)

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
