// pescope.verify() and its result, pescope.Verification: someone's RoPE numbers (any array with
// __array__ or __dlpack__) checked against Hugging Face's rotary embedding for a model's config,
// with `pescope verify`'s numbers, diagnosis and report.
#pragma once

#include <QString>
#include <QStringList>

#include "pybindinclude.h"

#include <optional>

namespace pe::python {

struct Verification
{
    bool agrees = true;
    QString what; // the quantity compared: inv-freq, attention-factor, cos, sin, cos-sin
    qint64 compared = 0;
    qint64 differing = 0;
    double maxAbsError = 0;
    double maxRelError = 0;
    pybind11::object firstDifference; // a dict, or None
    std::optional<QString> diagnosis;
    QStringList report; // the command line's lines
};

Verification verify(const pybind11::object &config, const pybind11::object &table,
                    const pybind11::object &what, const pybind11::object &positions,
                    const pybind11::object &tolerance, const pybind11::object &strict,
                    const pybind11::object &unscaled);

// pescope.Verification, its attributes, __bool__, __str__ and __repr__.
void bindVerification(pybind11::module_ &module);

} // namespace pe::python
