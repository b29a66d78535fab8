#!/usr/bin/env bash
# Builds llama.cpp (CPU only) once per machine into a cache outside the clone,
# keyed by the pinned commit, and prints the cache's path on stdout.
#
# llama.cpp is not packaged by Debian; its source comes from the npm package
# node-llama-cpp, which ships it as a git bundle (llama/gitRelease.bundle).
# The tarball is checked against a pinned SHA-256; nothing is downloaded at
# build time.  What is built: llama-server, llama-quantize and
# llama-tokenize, static libllama and ggml with their headers and a
# pkg-config file, and gguf-py (the writer of GGUF files, used to generate
# the test models).  The first run takes about 11 minutes on 2 cores.
#
#   scripts/llama.sh            # build if missing, print the cache path
#   SEAM_CACHE=DIR scripts/llama.sh
set -euo pipefail

nlc_version=3.22.1
nlc_sha256=a0d9dd80eacd2ab1cfe71aee57ac8a806487fd70b3d2a38fbec637752d9e5c5f
llama_commit=de3ff81

cache=${SEAM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/seam}
prefix="$cache/llama.cpp-$llama_commit"
stamp="$prefix/.complete"

log() { printf 'llama.sh: %s\n' "$*" >&2; }

if [ -f "$stamp" ]; then
  echo "$prefix"
  exit 0
fi

for tool in cmake g++ git npm; do
  command -v "$tool" >/dev/null || { log "missing $tool (scripts/setup.sh installs it)"; exit 1; }
done

mkdir -p "$cache"
# One build at a time: a second caller waits for the first.
exec 9>"$cache/llama.lock"
flock 9
if [ -f "$stamp" ]; then
  echo "$prefix"
  exit 0
fi

work=$(mktemp -d "$cache/build.XXXXXX")
trap 'rm -rf "$work"' EXIT
log "fetching node-llama-cpp@$nlc_version with npm (llama.cpp $llama_commit)"
(cd "$work" && npm pack --silent "node-llama-cpp@$nlc_version" >/dev/null 2>&1)
tarball="$work/node-llama-cpp-$nlc_version.tgz"
echo "$nlc_sha256  $tarball" | sha256sum --check --quiet || { log "checksum mismatch for $tarball"; exit 1; }
tar -xzf "$tarball" -C "$work" package/llama/gitRelease.bundle
git clone -q "$work/package/llama/gitRelease.bundle" "$work/src" 2>/dev/null
head=$(git -C "$work/src" rev-parse --short=7 HEAD)
[ "$head" = "$llama_commit" ] || { log "the bundle holds $head, not $llama_commit"; exit 1; }

log "building llama.cpp $llama_commit (CPU, static; about 11 minutes on 2 cores the first time)"
rm -rf "$prefix"
cmake -S "$work/src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release \
  -DBUILD_SHARED_LIBS=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=ON \
  -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_APP=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_UI=OFF \
  -DLLAMA_OPENSSL=OFF -DLLAMA_TOOLS_INSTALL=ON -DLLAMA_TESTS_INSTALL=OFF \
  -DGGML_OPENMP=OFF -DGGML_NATIVE=ON >"$work/cmake.log" 2>&1 || { tail -30 "$work/cmake.log" >&2; exit 1; }
jobs=$(nproc)
cmake --build "$work/build" -j "$jobs" --target llama llama-server llama-quantize llama-tokenize \
  >"$work/build.log" 2>&1 || { tail -40 "$work/build.log" >&2; exit 1; }
mkdir -p "$prefix/bin" "$prefix/lib" "$prefix/include"
cp "$work/build/bin/llama-server" "$work/build/bin/llama-quantize" "$work/build/bin/llama-tokenize" "$prefix/bin/"
find "$work/build" -name 'libllama.a' -o -name 'libggml*.a' | xargs -I{} cp {} "$prefix/lib/"
cp "$work/src/include/llama.h" "$work/src/include/llama-cpp.h" "$prefix/include/" 2>/dev/null || cp "$work/src/include/llama.h" "$prefix/include/"
cp "$work/src/ggml/include/"*.h "$prefix/include/"
cp -r "$work/src/gguf-py" "$prefix/gguf-py"
mkdir -p "$prefix/models"
cp "$work/src/models/"ggml-vocab-*.gguf "$prefix/models/"
mkdir -p "$prefix/lib/pkgconfig"
cat >"$prefix/lib/pkgconfig/llama.pc" <<EOF
prefix=$prefix
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: llama
Description: llama.cpp $llama_commit (static, CPU), built by seam's scripts/llama.sh
Version: 0.0.$llama_commit
Libs: -L\${libdir} -lllama -lggml -lggml-cpu -lggml-base -lstdc++ -lm -lpthread
Cflags: -I\${includedir}
EOF
touch "$stamp"
log "llama.cpp is in $prefix"
echo "$prefix"
