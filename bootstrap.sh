#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine (the README's two commands):
#   bash bootstrap.sh run    install what is missing, build, start pescope (extra args go to it)
#   bash bootstrap.sh test   install what is missing, build, run every test suite under Xvfb
#   bash bootstrap.sh sanitize   every suite again in a build with AddressSanitizer +
#                            UndefinedBehaviorSanitizer (build-asan/), then each libFuzzer target
#                            for PE_FUZZ_SECONDS (60) s (tests/fuzz/run.sh); not in CI yet (README,
#                            "Sanitizers and fuzzing": 36 min to build, Mesa leak reports open)
# Idempotent: a second run installs nothing and rebuilds only what changed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

mode=${1:-}
shift || true
build_dir=${PE_BUILD_DIR:-build}

# Debian 12 packages: toolchain, Qt 6, QCustomPlot (Qt 6 build), Eigen, Xvfb with Mesa
# (llvmpipe gives OpenGL 4.5 compute shaders), FFmpeg's libraries (animated export), NumPy and
# poppler for the tests and benchmarks.
packages=(
  cmake ninja-build g++ pkg-config
  qt6-base-dev qt6-base-dev-tools libqt6opengl6-dev libqt6svg6-dev
  libqcustomplot-dev libeigen3-dev
  libgl-dev libgl1-mesa-dri libglx-mesa0 mesa-utils
  libisal-dev zlib1g-dev xvfb xauth fonts-dejavu-core
  libavcodec-dev libavformat-dev libavfilter-dev libswscale-dev libavutil-dev
  python3 python3-numpy python3-matplotlib poppler-utils
)
# For `test` only: the validators of the desktop entry, AppStream metainfo, MIME type and man
# page, the tools that build and read the .deb (cpack -G DEB), and QEMU's user-mode emulator,
# which runs pescope on an emulated CPU without AVX; ffmpeg for the animation benchmark
# (matplotlib's writer runs it).
test_packages=(
  desktop-file-utils appstream shared-mime-info groff-base dpkg-dev fakeroot binutils qemu-user
  ffmpeg
)

install_missing() {
  local missing=()
  for p in "${packages[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  echo "Installing: ${missing[*]}"
  "${sudo[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
}

build() {
  if [ ! -f "$build_dir/build.ninja" ]; then
    cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release
  fi
  cmake --build "$build_dir" --parallel
}

case "$mode" in
  run)
    install_missing
    build
    exec "$build_dir/app/pescope" "$@"
    ;;
  test)
    install_missing "${test_packages[@]}"
    build
    # Every suite, under a virtual X display with Mesa's software OpenGL (llvmpipe).
    # PE_REQUIRE_GPU turns a missing OpenGL 4.3 context into a failure instead of a skip.
    PE_REQUIRE_GPU=1 exec xvfb-run -a -s "-screen 0 1920x1200x24" \
      ctest --test-dir "$build_dir" --output-on-failure --timeout 900 "$@"
    ;;
  sanitize)
    install_missing "${test_packages[@]}" clang
    asan_dir=${PE_ASAN_BUILD_DIR:-build-asan}
    # UBSan's checks stay recoverable so that tests/sanitizers/ubsan.supp can silence other
    # projects' code; halt_on_error makes any other report end the process all the same.
    flags="-fsanitize=address,undefined -fno-omit-frame-pointer -g1"
    if [ ! -f "$asan_dir/build.ninja" ]; then
      cmake -S . -B "$asan_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPE_BUILD_BENCH=OFF \
        -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_C_FLAGS="$flags"
    fi
    cmake --build "$asan_dir" --parallel
    supp=$PWD/tests/sanitizers
    # exitcode 86: a sanitizer's report, never mistaken for pescope's own exit codes.
    # verify_asan_link_order=0: the failure-injection suites preload tests/failwrite (LD_PRELOAD)
    # ahead of the ASan runtime on purpose.
    export ASAN_OPTIONS="detect_leaks=1:exitcode=86:detect_stack_use_after_return=0:verify_asan_link_order=0"
    export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
    export UBSAN_OPTIONS="suppressions=$supp/ubsan.supp:halt_on_error=1:print_stacktrace=1:exitcode=86"
    PE_REQUIRE_GPU=1 xvfb-run -a -s "-screen 0 1920x1200x24" \
      ctest --test-dir "$asan_dir" --output-on-failure --timeout 1800 "$@"
    bash tests/fuzz/run.sh "${PE_FUZZ_SECONDS:-60}"
    ;;
  *)
    echo "usage: bash bootstrap.sh run|test|sanitize" >&2
    exit 2
    ;;
esac
