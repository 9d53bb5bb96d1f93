// The GUI entry: `pescope [--preset NAME] [--page P] [--theme T] [--size WxH] [--screenshot FILE]`
// opens the explorer window; with --screenshot it waits for every view's result, saves a PNG of
// the whole window and exits.
#pragma once

namespace pe::cli {

int runGui(int argc, char **argv);

} // namespace pe::cli
