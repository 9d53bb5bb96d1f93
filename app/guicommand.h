// The GUI entry: `pescope [--preset NAME] [--page P] [--theme T] [--size WxH] [--screenshot FILE]`
// opens the explorer window; with --screenshot it waits for every view's result, saves a PNG of
// the whole window and exits.
#pragma once

#include "state/explorerstate.h"
#include "state/figureviews.h"

#include <QCommandLineParser>
#include <QSize>
#include <QString>

#include <optional>

namespace pe::cli {

// What the window's command line asks for, checked before any window exists. Empty strings and
// nullopt: not asked for.
struct GuiRequest
{
    QString session; // --session FILE, or a bare FILE
    QString preset;
    std::optional<Page> page;
    std::optional<Theme> theme;
    QSize size; // invalid: the saved or default size
    QString screenshot;
    QString model; // read when the window is built: it may take a while
    std::optional<FigureView> modelView;
    std::optional<PhraseTokenizer> phraseTokenizer; // the Phrases page's tokenizer
};

// The window's options (--help, --version, --preset, --page...) and its FILE argument.
void addGuiOptions(QCommandLineParser &parser);
// What the parsed options ask for; throws UsageError naming the option.
GuiRequest guiRequest(const QCommandLineParser &parser);

int runGui(int argc, char **argv);

} // namespace pe::cli
