// Sessions saved by earlier releases: the explorer state of session format 1 rewritten in the
// current format's keys, so files made before the field tables still open.
#pragma once

#include <QJsonObject>
#include <QString>

#include <optional>

namespace pe {

// Format 1 (pescope 0.1): spec.base/layout/seed/rope{...} for every scheme, RoPE keys in
// camelCase with "scaling", crosses and the selection as objects, ALiBi/T5/compare settings
// flat in "schemes". Keys format 1 had for schemes other than the chosen one are dropped; a key
// format 1 never had (a typo such as "positons"), an object that is not one ("spec": []) or a
// cell that is not two whole numbers is refused by name, with one sentence in *error, as
// format 2's reading refuses them: dropping it would draw the defaults without a word.
std::optional<QJsonObject> migrateStateFromVersion1(const QJsonObject &state, QString *error);

} // namespace pe
