#include "tokendecoder.h"

#include "bytelevel.h"
#include "normalizer.h"
#include "unicodetext.h"

namespace pe {

namespace {

// decoders/wordpiece.rs cleanup: spaces before punctuation and inside contractions.
QString cleanup(QString s)
{
    static const std::pair<const char *, const char *> replacements[] = {
        {" .", "."},   {" ?", "?"},     {" !", "!"},     {" ,", ","},
        {" ' ", "'"},  {" n't", "n't"}, {" 'm", "'m"},   {" do not", " don't"},
        {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"},
    };
    for (const auto &[from, to] : replacements)
        s.replace(QLatin1StringView(from), QLatin1StringView(to));
    return s;
}

class ByteLevelDecoder : public TokenDecoder
{
public:
    QStringList decodeChain(QStringList tokens) const override
    {
        QByteArray bytes;
        for (const QString &t : tokens)
            bytes.append(bytelevel::bytesOfToken(unicode::toU32(t)));
        return {bytelevel::fromUtf8Lossy(bytes)};
    }
};

class WordPieceDecoder : public TokenDecoder
{
public:
    QString prefix = QStringLiteral("##");
    bool clean = true;
    QStringList decodeChain(QStringList tokens) const override
    {
        for (qsizetype i = 0; i < tokens.size(); ++i) {
            QString &t = tokens[i];
            if (i != 0)
                t = t.startsWith(prefix) ? t.mid(prefix.size()) : QLatin1Char(' ') + t;
            if (clean)
                t = cleanup(t);
        }
        return tokens;
    }
};

class MetaspaceDecoder : public TokenDecoder
{
public:
    char32_t replacement = U'\u2581';
    bool prependNever = false;
    QStringList decodeChain(QStringList tokens) const override
    {
        // Every marker becomes a space; in the first token they go, unless the scheme never
        // prepends one.
        for (qsizetype i = 0; i < tokens.size(); ++i) {
            std::u32string out;
            for (const char32_t c : unicode::toU32(tokens[i])) {
                if (c != replacement)
                    out.push_back(c);
                else if (i != 0 || prependNever)
                    out.push_back(U' ');
            }
            tokens[i] = unicode::fromU32(out);
        }
        return tokens;
    }
};

class ByteFallbackDecoder : public TokenDecoder
{
public:
    QStringList decodeChain(QStringList tokens) const override
    {
        QStringList out;
        QByteArray pending;
        const auto flush = [&] {
            if (pending.isEmpty())
                return;
            // String::from_utf8: the bytes as text when they are valid UTF-8, else one U+FFFD
            // per byte.
            const QString text = unicode::fromUtf8(pending);
            if (text.toUtf8() == pending)
                out.append(text);
            else
                for (qsizetype i = 0; i < pending.size(); ++i)
                    out.append(QString(QChar::ReplacementCharacter));
            pending.clear();
        };
        for (const QString &t : tokens) {
            bool ok = false;
            const uint byte = t.size() == 6 && t.startsWith(QLatin1StringView("<0x")) &&
                                      t.endsWith(QLatin1Char('>'))
                                  ? t.mid(3, 2).toUInt(&ok, 16)
                                  : 0;
            if (ok && byte < 256) {
                pending.append(char(byte));
                continue;
            }
            flush();
            out.append(t);
        }
        flush();
        return out;
    }
};

class FuseDecoder : public TokenDecoder
{
public:
    QStringList decodeChain(QStringList tokens) const override { return {tokens.join(QString())}; }
};

class StripDecoder : public TokenDecoder
{
public:
    char32_t content = U' ';
    qsizetype start = 0;
    qsizetype stop = 0;
    QStringList decodeChain(QStringList tokens) const override
    {
        for (QString &t : tokens) {
            const std::u32string chars = unicode::toU32(t);
            const qsizetype n = qsizetype(chars.size());
            qsizetype from = 0;
            while (from < std::min(start, n) && chars[std::size_t(from)] == content)
                ++from;
            qsizetype to = n;
            while (n - to < stop && to > from && chars[std::size_t(to - 1)] == content)
                --to;
            t = unicode::fromU32(
                std::u32string_view(chars).substr(std::size_t(from), std::size_t(to - from)));
        }
        return tokens;
    }
};

class ReplaceDecoder : public TokenDecoder
{
public:
    explicit ReplaceDecoder(TextPattern pattern, QString content)
        : m_pattern(std::move(pattern)), m_content(std::move(content))
    {}
    QStringList decodeChain(QStringList tokens) const override
    {
        // Bounded as the normalizers are: past EncodeContext's growth limit over the tokens'
        // length, the remaining tokens are left as they are (decoding is for display).
        qint64 length = 0;
        for (const QString &t : tokens)
            length += t.size();
        const qint64 maxLength = EncodeContext::maxLengthFor(length);
        std::vector<PatternMatch> matches;
        for (QString &t : tokens) {
            const std::u32string chars = unicode::toU32(t);
            EncodeContext context;
            if (!m_pattern.findMatches(chars, &matches, context))
                continue; // left as it is: decoding is for display
            qint64 grown = t.size();
            for (const PatternMatch &m : matches)
                if (m.isMatch)
                    grown += m_content.size() - (m.end - m.start);
            if (length - t.size() + grown > maxLength)
                break;
            length += grown - t.size();
            QString out;
            for (const PatternMatch &m : matches)
                out += m.isMatch ? m_content
                                 : unicode::fromU32(std::u32string_view(chars).substr(
                                       std::size_t(m.start), std::size_t(m.end - m.start)));
            t = out;
        }
        return tokens;
    }

private:
    TextPattern m_pattern;
    QString m_content;
};

class BpeDecoder : public TokenDecoder
{
public:
    QString suffix = QStringLiteral("</w>");
    QStringList decodeChain(QStringList tokens) const override
    {
        for (qsizetype i = 0; i < tokens.size(); ++i)
            tokens[i].replace(suffix, i == tokens.size() - 1 ? QString() : QStringLiteral(" "));
        return tokens;
    }
};

class CtcDecoder : public TokenDecoder
{
public:
    QString padToken = QStringLiteral("<pad>");
    QString wordDelimiter = QStringLiteral("|");
    bool clean = true;
    QStringList decodeChain(QStringList tokens) const override
    {
        QStringList out;
        for (qsizetype i = 0; i < tokens.size(); ++i) {
            if (i > 0 && tokens[i] == tokens[i - 1])
                continue; // dedup
            QString t = tokens[i];
            t.replace(padToken, QString());
            if (clean)
                t = cleanup(t).replace(wordDelimiter, QStringLiteral(" "));
            if (!t.isEmpty())
                out.append(t);
        }
        return out;
    }
};

class SequenceDecoder : public TokenDecoder
{
public:
    std::vector<std::unique_ptr<TokenDecoder>> steps;
    QStringList decodeChain(QStringList tokens) const override
    {
        // Each step is bounded against its own input; the chain against the tokens given: a
        // step that makes them longer than EncodeContext's growth limit is undone, and the
        // chain stops there (decoding is for display).
        const qint64 maxLength = EncodeContext::maxLengthFor(totalLength(tokens));
        for (const auto &step : steps) {
            QStringList next = step->decodeChain(tokens);
            if (totalLength(next) > maxLength)
                break;
            tokens = std::move(next);
        }
        return tokens;
    }

private:
    static qint64 totalLength(const QStringList &tokens)
    {
        qint64 n = 0;
        for (const QString &t : tokens)
            n += t.size();
        return n;
    }
};

std::unique_ptr<TokenDecoder> readSimpleDecoder(const QString &type, const QJsonObject &o,
                                                const QString &path, JsonReader &r)
{
    if (type == QLatin1StringView("ByteLevel"))
        return std::make_unique<ByteLevelDecoder>();
    if (type == QLatin1StringView("ByteFallback"))
        return std::make_unique<ByteFallbackDecoder>();
    if (type == QLatin1StringView("Fuse"))
        return std::make_unique<FuseDecoder>();
    if (type == QLatin1StringView("WordPiece")) {
        auto d = std::make_unique<WordPieceDecoder>();
        d->prefix = r.string(o, path, "prefix", d->prefix);
        d->clean = r.boolean(o, path, "cleanup", true);
        return d;
    }
    if (type == QLatin1StringView("Metaspace")) {
        auto d = std::make_unique<MetaspaceDecoder>();
        d->replacement = r.character(o, path, "replacement", d->replacement);
        d->prependNever = r.string(o, path, "prepend_scheme", QStringLiteral("always")) ==
                              QLatin1StringView("never") ||
                          !r.boolean(o, path, "add_prefix_space", true);
        return d;
    }
    if (type == QLatin1StringView("Strip")) {
        auto d = std::make_unique<StripDecoder>();
        d->content = r.character(o, path, "content", U' ');
        d->start = r.integer(o, path, "start", 0);
        d->stop = r.integer(o, path, "stop", 0);
        return d;
    }
    if (type == QLatin1StringView("BPEDecoder")) {
        auto d = std::make_unique<BpeDecoder>();
        d->suffix = r.string(o, path, "suffix", d->suffix);
        return d;
    }
    if (type == QLatin1StringView("CTC")) {
        auto d = std::make_unique<CtcDecoder>();
        d->padToken = r.string(o, path, "pad_token", d->padToken);
        d->wordDelimiter = r.string(o, path, "word_delimiter_token", d->wordDelimiter);
        d->clean = r.boolean(o, path, "cleanup", true);
        return d;
    }
    return nullptr;
}

} // namespace

std::unique_ptr<TokenDecoder> readTokenDecoder(const QJsonValue &value, const QString &path,
                                               JsonReader &r)
{
    const QJsonObject o = r.component(value, path);
    const QString type = r.type(o, path);
    if (!r.ok())
        return nullptr;
    std::unique_ptr<TokenDecoder> out;
    if (type == QLatin1StringView("Replace")) {
        std::optional<TextPattern> pattern = readTextPattern(o, path, r);
        const QString content = r.requiredString(o, path, "content");
        if (pattern)
            out = std::make_unique<ReplaceDecoder>(std::move(*pattern), content);
    } else if (type == QLatin1StringView("Sequence")) {
        auto seq = std::make_unique<SequenceDecoder>();
        seq->steps = readSteps<TokenDecoder>(o, path, "decoders", r, readTokenDecoder);
        out = std::move(seq);
    } else {
        out = readSimpleDecoder(type, o, path, r);
        if (!out && r.ok())
            r.fail(path, QStringLiteral("unknown decoder type \"%1\"").arg(type));
    }
    return r.ok() ? std::move(out) : nullptr;
}

} // namespace pe
