// EncodingSpec: every parameter that defines one positional-encoding matrix — the scheme with its
// own parameters (a variant over schemelist.h), positions and dims — and its validation, JSON and
// command-line options, all derived from the field tables. Validation is the single place where
// limits are checked; nothing downstream re-checks.
#pragma once

#include "speclimits.h"

#include <QString>
#include <QtGlobal>

namespace pe {

// Human-readable byte count ("1.5 GiB") for messages.
QString formatBytes(double bytes);

} // namespace pe

#include "schemes/schemes.h"

class QCommandLineParser;

namespace pe {

class OptionSet;

struct EncodingSpec
{
    SchemeParameters scheme; // the first scheme of the list (sinusoidal) by default
    qint64 positions = 200;
    // Columns of the matrix. For schemes without a dims axis (SchemeInfo::usesDims false: the
    // bias schemes, positions x positions) it equals positions; normalized() sees to that.
    qint64 dims = 128;

    static FieldTable<EncodingSpec> fields();

    // The spec with dims = positions for schemes whose columns are positions, and the shape a
    // scheme's data fixes (a model table's columns).
    EncodingSpec normalized() const;
    // Loads what the scheme's parameters name (a model file's table: file I/O, so not on a busy
    // UI thread); a no-op for formula schemes. False with *error naming the file and problem.
    bool resolve(QString *error);
    // True when the scheme reads its values from files (resolve() does I/O): the window reads
    // those on the scheduler's worker, never on its UI thread.
    bool readsFiles() const { return (schemesReadingFiles >> scheme.index()) & 1u; }
    // Empty when valid; else the first problem: a field out of range, a rule of the scheme.
    FieldProblem problem() const;
    // The problem as one sentence naming the field ("dims must be even for rope ...").
    QString validate() const;
    // A problem named as the command line names it ("--factor must be ...").
    QString describe(const FieldProblem &problem, FieldNaming naming) const;

    MatrixShape shape() const { return {positions, dims}; }
    const SchemeInfo &info() const { return schemeInfo(scheme); }
    QString schemeId() const { return pe::schemeId(scheme); }
    MatrixPlan plan() const;
    ValueRange valueRange() const;
    SchemeAxes axes() const;
    ColumnInfo column(qint64 column) const;
    QString caption() const;
    QString legend() const;
    // The scheme's formula with its parameters filled in: "PE(p, 2i) = sin(p / 10000^(2i /
    // 128))"; for RoPE also θᵢ and the scaling rule in use. HTML.
    QString formula() const;
    // The formula of cell (position, column) with its numbers and `value`, the computed value, as
    // one plain-text line for the status bar: "PE(50, 100) = sin(50 / 10000^(100/128)) = sin(50 ×
    // 0.000748) = 0.036".
    QString cellFormula(qint64 position, qint64 column, double value) const;
    std::vector<DataOutput> outputs() const;

    qint64 elementCount() const { return positions * dims; }
    qint64 byteCount() const { return elementCount() * qint64(sizeof(float)); }
    bool operator==(const EncodingSpec &) const = default;

    template <class S> const S *get() const { return std::get_if<S>(&scheme); }

    // {"scheme": "rope", "positions": 1024, "dims": 128, <the scheme's fields>}.
    QJsonObject toJson() const;
    // Reads the keys `json` has on top of *this (a "scheme" key starts from that scheme's
    // defaults); the result is normalized but not validated.
    FieldProblem readJson(const QJsonObject &json);

    // Every spec option (--scheme, --positions, --dims and each scheme's fields) for --help.
    static void addOptions(OptionSet &options);
    // The spec the options describe on top of *this; problems name the option.
    FieldProblem readOptions(const QCommandLineParser &parser);
    // True when any spec option is set.
    static bool anyOptionSet(const QCommandLineParser &parser);
};

} // namespace pe
