// libFuzzer target: a session file's bytes as File > Open session reads them (sessionfile's
// parseSession: JSON, format version, migration of older formats) and the state they hold
// applied to the explorer's state (ExplorerState::applyJson, every field table). Beyond not
// crashing, the contract of loading: a refused session names its problem and leaves the state
// as it was; an accepted one saves and loads back to the same state.
#include "fuzzinput.h"
#include "state/explorerstate.h"
#include "state/sessionfile.h"

#include <cstddef>
#include <cstdint>

using pe::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pe::fuzz::ensureCoreApplication();

    const QByteArray bytes =
        QByteArray::fromRawData(reinterpret_cast<const char *>(data), qsizetype(size));
    QJsonObject json;
    QString error;
    if (!pe::parseSession(bytes, QStringLiteral("fuzz.pescope"), &json, &error)) {
        check(!error.isEmpty());
        return 0;
    }
    pe::ExplorerState state;
    const QJsonObject before = state.toJson();
    if (!state.applyJson(json, &error)) {
        check(!error.isEmpty());
        check(state.toJson() == before);
        return 0;
    }
    const QJsonObject saved = state.toJson();
    pe::ExplorerState again;
    check(again.applyJson(saved, &error));
    check(again.toJson() == saved);
    return 0;
}
