// Includes <qcustomplot.h> under our QT_NO_FOREACH: its inline templates iterate with Qt's
// `foreach`, which that define removes, so a range-for stand-in (same meaning for these
// read-only loops) is provided for the duration of the include. Include this, not the header.
#pragma once

#if defined(QT_NO_FOREACH) && !defined(foreach)
// A declaration and an expression spliced into a range-for: parentheses would not parse.
// NOLINTNEXTLINE(bugprone-macro-parentheses)
#define foreach(variable, container) for (variable : container)
#define PE_QCP_FOREACH_SHIM
#endif
#include <qcustomplot.h>
#ifdef PE_QCP_FOREACH_SHIM
#undef foreach
#undef PE_QCP_FOREACH_SHIM
#endif
