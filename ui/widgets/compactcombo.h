// Combo boxes as wide as a sensible number of characters rather than their longest choice
// (issue 38: the Encoding page's panel took 440 of 1024 px, the figure the rest): the list that
// drops down stays wide enough to read every choice whole, and a choice cut in the box itself
// is given whole by the box's tooltip.
#pragma once

class QComboBox;
class QString;

namespace pe {

// The characters a compact combo box shows before it cuts a choice.
constexpr int compactComboCharacters = 12;

// Makes `combo` compact (above); it keeps following its choices, its current one and its
// width. A tooltip of its own stays, after the whole choice when that is cut.
void makeCompact(QComboBox *combo, int characters = compactComboCharacters);

// Whether `combo`'s current choice is longer than its box at its current width.
bool comboTextCut(const QComboBox *combo);

// What a compact box shows of its current choice (issue 46.8: "Interleaved (sin, cos" was cut
// mid-word at 1280 x 720): the choice where it fits, else the choice without its parenthesis
// ("Interleaved" for "Interleaved (sin, cos, sin, ...)"), else the choice elided with "…". The
// list that drops down and the tooltip give it whole.
QString comboShownText(const QComboBox *combo);

} // namespace pe
