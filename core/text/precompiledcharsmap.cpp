#include "precompiledcharsmap.h"

#include "unicodetext.h"

#include <QtEndian>

namespace pe {

namespace {

// A double-array unit (Darts-clone's DoubleArrayUnit, as spm_precompiled's ArrayUnitTrait).
bool hasLeaf(quint32 unit)
{
    return (unit >> 8) & 1;
}

quint32 value(quint32 unit)
{
    return unit & ((1u << 31) - 1);
}

quint32 label(quint32 unit)
{
    return unit & ((1u << 31) | 0xFF);
}

quint64 offset(quint32 unit)
{
    return quint64(unit >> 10) << ((unit & (1u << 9)) >> 6);
}

bool isContinuation(char byte)
{
    return (static_cast<unsigned char>(byte) & 0xC0) == 0x80;
}

} // namespace

std::optional<PrecompiledCharsmap> PrecompiledCharsmap::fromBlob(QByteArrayView blob,
                                                                 QString *error)
{
    const auto fail = [&](const QString &why) -> std::optional<PrecompiledCharsmap> {
        if (error)
            *error = why;
        return std::nullopt;
    };
    if (blob.size() < 4)
        return fail(QStringLiteral("the charsmap is %1 bytes long, too short for its trie's size")
                        .arg(blob.size()));
    const quint32 trieBytes = qFromLittleEndian<quint32>(blob.data());
    // parse(): trie_size / 4 units follow; bytes left over belong to the strings.
    const qint64 units = trieBytes / 4;
    if (units * 4 > blob.size() - 4)
        return fail(QStringLiteral("the charsmap's trie is %1 bytes long but only %2 bytes follow")
                        .arg(trieBytes)
                        .arg(blob.size() - 4));
    if (units == 0)
        return fail(QStringLiteral("the charsmap's trie is empty"));
    PrecompiledCharsmap out;
    out.m_units.resize(std::size_t(units));
    for (qint64 i = 0; i < units; ++i)
        out.m_units[std::size_t(i)] = qFromLittleEndian<quint32>(blob.data() + 4 + 4 * i);
    const QByteArrayView strings = blob.sliced(4 + units * 4);
    // String::from_utf8 in Precompiled::from.
    qsizetype invalid = -1;
    unicode::fromUtf8(strings, &invalid);
    if (invalid >= 0)
        return fail(QStringLiteral("the charsmap's replacement strings are not valid UTF-8 (byte "
                                   "%1 of the blob)")
                        .arg(4 + units * 4 + invalid));
    out.m_strings = strings.toByteArray();
    return out;
}

PrecompiledCharsmap::Lookup PrecompiledCharsmap::transform(std::string_view key,
                                                           std::u32string *replacement,
                                                           QString *error) const
{
    const auto broken = [&](const QString &why) {
        if (error)
            *error = QStringLiteral("the Precompiled normalizer's charsmap is broken: %1").arg(why);
        return Lookup::Broken;
    };
    const quint64 size = m_units.size();
    // DoubleArray::first_prefix_value: the value of the first (shortest) prefix of the key that
    // ends at a leaf.
    quint64 node = offset(m_units[0]);
    std::optional<quint32> found;
    for (const char byte : key) {
        const auto c = static_cast<unsigned char>(byte);
        if (c == 0)
            break;
        node ^= c;
        if (node >= size)
            return broken(QStringLiteral("its trie points to unit %1 of %2").arg(node).arg(size));
        const quint32 unit = m_units[node];
        if (label(unit) != c)
            return Lookup::NoRule;
        node ^= offset(unit);
        if (hasLeaf(unit)) {
            if (node >= size)
                return broken(
                    QStringLiteral("its trie points to unit %1 of %2").arg(node).arg(size));
            found = value(m_units[node]);
            break;
        }
    }
    if (!found)
        return Lookup::NoRule;
    // Precompiled::transform: the string from that byte to the next NUL (or the end).
    const qsizetype start = qsizetype(*found);
    if (start > m_strings.size())
        return broken(QStringLiteral("a value points to byte %1 of its %2 bytes of strings")
                          .arg(start)
                          .arg(m_strings.size()));
    if (start < m_strings.size() && isContinuation(m_strings[start]))
        return broken(
            QStringLiteral("a value points into the middle of a character (byte %1)").arg(start));
    qsizetype end = m_strings.indexOf('\0', start);
    if (end < 0)
        end = m_strings.size();
    replacement->clear();
    // The strings are valid UTF-8 (checked when read) and the slice starts and ends on
    // character boundaries (a NUL or the end).
    for (qsizetype i = start; i < end;) {
        const unicode::Utf8Sequence sequence = unicode::decodeUtf8(m_strings, i);
        replacement->push_back(sequence.length > 0 ? sequence.c : char32_t(0xFFFD));
        i += sequence.prefix;
    }
    return Lookup::Replaced;
}

} // namespace pe
