#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine (the README's two commands):
#   bash bootstrap.sh run    install what is missing, build, start pescope (extra args go to it)
#   bash bootstrap.sh test   install what is missing, build, run every test suite under Xvfb
#   bash bootstrap.sh sanitize   the suites of core, formats, sessions and the command line again
#                            in a Clang build with AddressSanitizer +
#                            UndefinedBehaviorSanitizer (build-sanitize/), then each libFuzzer
#                            target replays its committed inputs and a seeded, bounded search
#                            (tests/fuzz/run.sh check: the same result on every run); CI's second
#                            stage (docs/engineering.md, "Sanitizers and fuzzing")
#   bash bootstrap.sh fuzz [MINUTES]   random fuzzing in that build, MINUTES (default 5) per
#                            target, two at a time: before resolving a change to a parser
#   bash bootstrap.sh tidy   clang-tidy (.clang-tidy) over app/, core/ and ui/, with that
#                            build's compile commands; CI's last step
# Idempotent: a second run installs nothing and rebuilds only what changed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

mode=${1:-}
shift || true
build_dir=${PE_BUILD_DIR:-build}

# Debian 12 packages: toolchain, Qt 6, QCustomPlot (Qt 6 build), Eigen, simdjson, OpenBLAS (the
# forward pass's matrix products), Xvfb with Mesa (llvmpipe gives OpenGL 4.5 compute shaders),
# FFmpeg's libraries (animated export), NumPy and poppler for the tests and benchmarks, Python's
# headers and pybind11 for the Python module.
packages=(
  cmake ninja-build g++ pkg-config
  qt6-base-dev qt6-base-dev-tools libqt6opengl6-dev qt6-svg-dev
  libqcustomplot-dev libeigen3-dev libsimdjson-dev libopenblas-dev
  libgl-dev libgl1-mesa-dri libglx-mesa0 mesa-utils
  libisal-dev zlib1g-dev xvfb xauth fonts-dejavu-core
  libavcodec-dev libavformat-dev libavfilter-dev libswscale-dev libavutil-dev
  python3 python3-numpy python3-matplotlib poppler-utils ccache
  python3-dev pybind11-dev
)
# For `test` only: the validators of the desktop entry, AppStream metainfo, MIME type and man
# page, the tools that build and read the .deb (cpack -G DEB), and QEMU's user-mode emulator,
# which runs pescope on an emulated CPU without AVX; ffmpeg for the animation benchmark
# (matplotlib's writer runs it); pytest for the Python module's suite, and Jupyter's nbconvert
# and Python kernel to run its notebook (47 packages, 4.5 MB to download, 26 MB installed); for
# the monkey test, xdotool (input), xclip (pasted text), gdb (a backtrace on failure) and
# imagemagick (a screenshot); Chromium, the headless browser that opens a lesson's HTML deck and
# steps it with the arrow keys (tests/lessons/deck_in_browser.py).
test_packages=(
  desktop-file-utils appstream shared-mime-info groff-base dpkg-dev fakeroot binutils qemu-user
  ffmpeg
  python3-pytest jupyter-nbconvert python3-ipykernel
  xdotool xclip gdb imagemagick
  chromium
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

# ccache (installed above), when present, makes a rebuild of unchanged sources nearly free; it
# does nothing for CI's first build on a new machine, whose cache is empty.
launcher=()
find_launcher() {
  if command -v ccache >/dev/null 2>&1; then
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  fi
}

build() {
  find_launcher
  if [ ! -f "$build_dir/build.ninja" ]; then
    cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}"
  fi
  cmake --build "$build_dir" --parallel
}

# The Clang build of `sanitize`, also the compile commands `tidy` reads: core, ui, app, the
# suites of the code where memory errors hide (not those that drive Widgets or check packaging:
# PE_SANITIZER_SUITES_ONLY, tests/CMakeLists.txt) and the libFuzzer targets, with
# AddressSanitizer + UndefinedBehaviorSanitizer.
# Clang builds in half GCC's time; -O2 costs no more to compile than -O1 and vectorises the
# kernels (at -O1 two suites ran past their time limits). The fuzzers' coverage instrumentation
# (fuzzer-no-link) in every object saves a second build.
sanitize_dir=${PE_ASAN_BUILD_DIR:-build-sanitize}
configure_sanitize() {
  find_launcher
  local flags="-fsanitize=address,undefined -fsanitize=fuzzer-no-link -fno-omit-frame-pointer"
  flags+=" -gline-tables-only"
  # Every time: a folder configured before PE_SANITIZER_SUITES_ONLY existed takes it up, and an
  # unchanged configuration costs a few seconds and rebuilds nothing.
  cmake -S . -B "$sanitize_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_C_FLAGS_RELEASE="-O2 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" \
    -DPE_BUILD_BENCH=OFF -DPE_BUILD_FUZZERS=ON -DPE_SANITIZER_SUITES_ONLY=ON \
    -DCMAKE_EXPORT_COMPILE_COMMANDS=ON "${launcher[@]}" \
    -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_C_FLAGS="$flags" >/dev/null
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
    # The second stage of CI (.ci/run): the Clang build above, its suites, then each fuzz target
    # on its committed inputs and a seeded, bounded search, one per core at a time. Any report
    # fails it; the same commit always gives the same result (no random seed, no time limit).
    install_missing "${test_packages[@]}" clang libclang-rt-dev
    configure_sanitize
    asan_dir=$sanitize_dir
    SECONDS=0
    cmake --build "$asan_dir" --parallel
    echo "sanitize: built in $((SECONDS / 60)) min $((SECONDS % 60)) s"
    supp=$PWD/tests/sanitizers
    # exitcode 86: a sanitizer's report, never mistaken for pescope's own exit codes.
    # verify_asan_link_order=0: test processes preload keeploaded (below), and the
    # failure-injection suites tests/failwrite, ahead of the ASan runtime on purpose.
    export ASAN_OPTIONS="detect_leaks=1:exitcode=86:detect_stack_use_after_return=0:verify_asan_link_order=0"
    export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
    export UBSAN_OPTIONS="suppressions=$supp/ubsan.supp:halt_on_error=1:print_stacktrace=1:exitcode=86"
    # Qt Test's watchdog ends a test function after 5 min; sanitized code runs several times
    # slower (tst_commit: 489 s against 108 s in the release build).
    export QTEST_FUNCTION_TIMEOUT=900000
    keeploaded=$(cd "$asan_dir" && pwd)/tests/libkeeploaded.so
    SECONDS=0
    status=0
    PE_REQUIRE_GPU=1 xvfb-run -a -s "-screen 0 1920x1200x24" env LD_PRELOAD="$keeploaded" \
      ctest --test-dir "$asan_dir" --output-on-failure --timeout 1800 "$@" || status=$?
    echo "sanitize: suites ran in $((SECONDS / 60)) min $((SECONDS % 60)) s"
    SECONDS=0
    PE_FUZZ_BUILD_DIR="$asan_dir" bash tests/fuzz/run.sh check || status=$?
    echo "sanitize: fuzzed in $((SECONDS / 60)) min $((SECONDS % 60)) s"
    exit $status
    ;;
  fuzz)
    # Long random fuzzing, never in CI (its result would depend on luck): each target for
    # MINUTES from a random seed, keeping what it learns in build-sanitize/corpus/. A finding is
    # fixed and its reproducer (build-sanitize/crashes/) copied to tests/fuzz/findings/TARGET/.
    install_missing clang libclang-rt-dev
    minutes=${1:-5}
    [[ "$minutes" =~ ^[1-9][0-9]*$ ]] || { echo "usage: bash bootstrap.sh fuzz [MINUTES]" >&2; exit 2; }
    configure_sanitize
    PE_FUZZ_BUILD_DIR="$sanitize_dir" exec bash tests/fuzz/run.sh explore "$((minutes * 60))"
    ;;
  tidy)
    # clang-tidy with .clang-tidy's checks over every source of app/, core/ and ui/ (and the
    # headers they include from there), with the compile commands of the sanitizer build; any
    # finding fails. The suites are not checked: their code is checks of its own. A unit whose
    # preprocessed text, flags, checks and clang-tidy version are those of a run that passed is
    # not checked again: tests/tidy/run-tidy.py keeps their keys in tests/tidy/passed.txt
    # (checked in; commit it with your change). PE_TIDY_ALL=1 checks every unit.
    install_missing clang clang-tidy libclang-rt-dev
    configure_sanitize
    # The sources include the moc output. Its targets wait for the libraries they link (CMake's
    # autogen order), so on its own this builds core and ui in build-sanitize/ first (about 10
    # min); after the sanitizer stage, as in CI, there is nothing left to build.
    cmake --build "$sanitize_dir" --target pe_core_autogen pe_ui_autogen pe_cli_autogen
    all=()
    [ "${PE_TIDY_ALL:-0}" = 1 ] && all=(--all)
    status=0
    /usr/bin/python3 tests/tidy/run-tidy.py --build "$sanitize_dir" --cache tests/tidy/passed.txt \
      --log "$sanitize_dir/clang-tidy.log" --jobs "$(nproc)" "${all[@]}" || status=$?
    [ "$status" -eq 0 ] || echo "tidy: FAILED (whole output: $sanitize_dir/clang-tidy.log)" >&2
    exit $status
    ;;
  *)
    echo "usage: bash bootstrap.sh run|test|sanitize|fuzz|tidy" >&2
    exit 2
    ;;
esac
