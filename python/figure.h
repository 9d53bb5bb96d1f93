// pescope.figure() and pescope.Figure: a figure of `pescope export` (the same options, the same
// FigureBuilder), computed when made and drawn on demand as PNG (Jupyter's _repr_png_), SVG
// (_repr_svg_) or a file (save: PNG, SVG or PDF).
#pragma once

#include "compute/figuredata.h"
#include "exportcommand.h"
#include "state/figureviews.h"

#include <QByteArray>

#include "pybindinclude.h"

namespace pe::python {

class Figure
{
public:
    Figure(cli::FigureRequest request, FigureData data);

    // PNG bytes, or the SVG or PDF document; RuntimeError when drawing fails.
    QByteArray render(FigureFormat format) const;
    // The format from the extension (.png, .svg, .pdf), written all or nothing.
    void save(pybind11::handle path) const;
    const FigureOptions &options() const { return m_request.figure; }

private:
    cli::FigureRequest m_request;
    FigureData m_data;
};

Figure makeFigure(const pybind11::object &view, const pybind11::kwargs &options);

// pescope.Figure with _repr_png_, _repr_svg_, save and its size.
void bindFigure(pybind11::module_ &module);

} // namespace pe::python
