// Models named from Python: a path (config.json, a model folder, a .safetensors, .gguf or .npy
// file, a cached repo id) read as `--config FILE` or `--model PATH` reads it, or a dict holding
// config.json's JSON. A path that does not exist or cannot be read raises OSError; a file that
// cannot be understood raises ValueError with the command line's message.
#pragma once

#include "formats/modelconfig.h"

#include "pybindinclude.h"

namespace pe::python {

// A path given for `what` (parameter name) that exists and can be read, or a repo id in the
// Hugging Face cache; OSError (FileNotFoundError, PermissionError) naming it otherwise.
QString readablePath(pybind11::handle path, const QString &what);

// The config `config` names: a dict of config.json, or a path (a .json file as --config reads
// it, anything else as --model does).
ModelConfig modelConfigFrom(const pybind11::object &config);

// What `pescope inspect PATH --json` prints, as a dict.
pybind11::dict inspectModel(const pybind11::object &path);

} // namespace pe::python
