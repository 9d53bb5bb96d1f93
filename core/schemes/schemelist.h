// The one list of every scheme pescope knows, in menu order. A scheme is added by writing its
// descriptor (scheme.h says what one provides) and naming it here; the command line, sessions,
// the window's forms and the backends find it through this list.
#pragma once

#include "alibischeme.h"
#include "learnedscheme.h"
#include "nopescheme.h"
#include "ropescheme.h"
#include "sinusoidalscheme.h"
#include "t5scheme.h"
#include "tablescheme.h"

#include <variant>

namespace pe {

// One scheme a line, in menu order (kept so by hand: a new scheme is one added line).
// clang-format off
using SchemeParameters = std::variant<
    SinusoidalScheme,
    LearnedScheme,
    RopeScheme,
    AlibiScheme,
    T5Scheme,
    NopeScheme,
    TableScheme
>;
// clang-format on

} // namespace pe
