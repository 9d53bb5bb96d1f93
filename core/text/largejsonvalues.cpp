#include "largejsonvalues.h"

#include <simdjson.h>

#include <cstring>

namespace pe {

namespace {

namespace od = simdjson::ondemand;

// The model types whose readers take the raw vocabulary (and, for BPE, merges); a file
// without "type" names its model by its fields, as legacyModelType() reads them.
bool readsVocabulary(std::string_view type)
{
    return type == "BPE" || type == "WordPiece" || type == "WordLevel";
}

} // namespace

bool LargeJsonValues::locate(QByteArrayView text, qsizetype readable)
{
    m_found.clear();
    const auto size = std::size_t(text.size());
    if (size > simdjson::SIMDJSON_MAXSIZE_BYTES)
        return false;
    if (readable > 0 && std::size_t(readable) >= size + simdjson::SIMDJSON_PADDING) {
        m_copy.reset();
        m_buffer = text.data();
        m_capacity = std::size_t(readable);
    } else {
        m_capacity = size + simdjson::SIMDJSON_PADDING;
        m_copy.reset(new char[m_capacity]);
        std::memcpy(m_copy.get(), text.data(), size);
        // simdjson reads the padding but not its values; set, they keep sanitizers quiet.
        std::memset(m_copy.get() + size, 0, simdjson::SIMDJSON_PADDING);
        m_buffer = m_copy.get();
    }

    od::parser parser;
    od::document document;
    od::object top;
    od::object model;
    if (parser.iterate(m_buffer, size, m_capacity).get(document) || document.get_object().get(top))
        return false;
    bool hasModel = false;
    for (auto field : top) {
        std::string_view key;
        if (field.unescaped_key().get(key))
            return false;
        if (key == "model") {
            if (field.value().get_object().get(model))
                return false;
            hasModel = true;
            break;
        }
    }
    if (!hasModel)
        return false;
    std::string type;
    bool typed = false;
    std::vector<Found> found;
    for (auto field : model) {
        std::string_view key;
        od::value value;
        od::json_type kind{};
        if (field.unescaped_key().get(key) || field.value().get(value) || value.type().get(kind))
            return false;
        std::string_view raw;
        if (key == "type") {
            std::string_view name;
            if (kind != od::json_type::string || value.get_string().get(name))
                return false; // Qt's reading names the problem
            type = std::string(name);
            typed = true;
        } else if (key == "vocab" && kind == od::json_type::object) {
            od::object object;
            if (value.get_object().get(object) || object.raw_json().get(raw))
                return false;
            found.push_back({QStringLiteral("model.vocab"), 0, 0, {raw, 0}});
        } else if (key == "vocab" && kind == od::json_type::array) {
            od::array array;
            if (value.get_array().get(array) || array.raw_json().get(raw))
                return false;
            found.push_back({QStringLiteral("model.vocab"), 0, 0, {raw, 0}});
        } else if (key == "merges" && kind == od::json_type::array) {
            od::array array;
            if (value.get_array().get(array) || array.raw_json().get(raw))
                return false;
            found.push_back({QStringLiteral("model.merges"), 0, 0, {raw, 0}});
        }
    }
    for (Found &f : found) {
        // raw_json() runs to the next structural character: blanks after the value too.
        std::string_view raw = f.raw.json;
        while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\n' || raw.back() == '\r' ||
                                raw.back() == '\t'))
            raw.remove_suffix(1);
        f.raw.json = raw;
        if (raw.size() < 2)
            continue;
        const bool isMerges = f.path.endsWith(QLatin1StringView("merges"));
        const bool isArray = raw.front() == '[';
        if (isMerges ? typed && type != "BPE"
                     : (isArray ? type != "Unigram" : typed && !readsVocabulary(type)))
            continue;
        const char open = isArray ? '[' : '{';
        const char close = isArray ? ']' : '}';
        if (raw.front() != open || raw.back() != close)
            continue;
        const qsizetype begin = raw.data() - m_buffer;
        f.begin = begin;
        f.end = begin + qsizetype(raw.size());
        f.raw.capacity = m_capacity - std::size_t(begin);
        m_found.push_back(f);
    }
    return !m_found.empty();
}

namespace rawjson {

bool forEachId(const JsonReader::RawValue &value,
               const std::function<bool(std::string_view key, std::uint64_t id)> &visit)
{
    od::parser parser;
    od::document document;
    od::object object;
    if (parser.iterate(value.json.data(), value.json.size(), value.capacity).get(document) ||
        document.get_object().get(object))
        return false;
    for (auto field : object) {
        std::string_view key;
        std::uint64_t id = 0;
        if (field.unescaped_key().get(key) || field.value().get_uint64().get(id) || !visit(key, id))
            return false;
    }
    return true;
}

bool forEachScoredToken(const JsonReader::RawValue &value,
                        const std::function<bool(std::string_view token, double score)> &visit)
{
    od::parser parser;
    od::document document;
    od::array array;
    if (parser.iterate(value.json.data(), value.json.size(), value.capacity).get(document) ||
        document.get_array().get(array))
        return false;
    for (auto element : array) {
        od::array entry;
        if (element.get_array().get(entry))
            return false;
        std::string_view token;
        double score = 0;
        int parts = 0;
        for (auto part : entry) {
            const bool wrong = parts == 0   ? part.get_string().get(token) != simdjson::SUCCESS
                               : parts == 1 ? part.get_double().get(score) != simdjson::SUCCESS
                                            : true;
            if (wrong)
                return false;
            ++parts;
        }
        if (parts != 2 || !visit(token, score))
            return false;
    }
    return true;
}

bool forEachMerge(const JsonReader::RawValue &value,
                  const std::function<bool(qsizetype index, const Merge &merge)> &visit)
{
    od::parser parser;
    od::document document;
    od::array array;
    if (parser.iterate(value.json.data(), value.json.size(), value.capacity).get(document) ||
        document.get_array().get(array))
        return false;
    qsizetype index = 0;
    for (auto element : array) {
        od::value item;
        od::json_type kind{};
        if (element.get(item) || item.type().get(kind))
            return false;
        Merge merge;
        if (kind == od::json_type::string) {
            if (item.get_string().get(merge.first))
                return false;
            merge.kind = Merge::String;
        } else if (kind == od::json_type::array) {
            od::array pair;
            if (item.get_array().get(pair))
                return false;
            int parts = 0;
            for (auto part : pair) {
                od::value v;
                od::json_type partKind{};
                if (part.get(v) || v.type().get(partKind) || partKind != od::json_type::string ||
                    parts >= 2 || v.get_string().get(parts == 0 ? merge.first : merge.second))
                    return false;
                ++parts;
            }
            if (parts != 2)
                return false;
            merge.kind = Merge::Pair;
        } else {
            return false;
        }
        if (!visit(index++, merge))
            return false;
    }
    return true;
}

} // namespace rawjson

} // namespace pe
