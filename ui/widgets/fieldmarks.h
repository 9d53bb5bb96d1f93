// Marks for refused input: a tinted field and a bold message in the theme's warning colour.
// Palettes rather than style sheets, because widgets under a style sheet stop following the
// application palette, and with it the light/dark theme.
#pragma once

class QLabel;
class QWidget;

namespace pe {

void markInvalid(QWidget *field, bool invalid);
void markAsMessage(QLabel *label);

} // namespace pe
