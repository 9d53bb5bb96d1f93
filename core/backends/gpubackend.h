// GpuBackend: encode() and sample() as OpenGL 4.3 compute shaders (resources/shaders/*.comp) on
// a QOpenGLContext + QOffscreenSurface, giving the CPU backend's numbers (the shaders mirror
// core/backends/phasekernels.h). Needs a QGuiApplication; Qt Gui and OpenGL only, no Widgets.
//
// Results leave the GPU in chunks through a ring of read-back slots: the shaders write a slot's
// GPU-only buffer, glCopyBufferSubData copies it into the slot's host-visible buffer (persistently
// mapped where glBufferStorage exists, GL 4.4 or ARB_buffer_storage), a fence marks it done, and
// the CPU copies it to the caller's memory while the next chunks compute.
#pragma once

#include "backends/backend.h"

#include <QByteArray>
#include <QHash>
#include <QStringList>

#include <memory>

namespace pe {

class GpuBackend final : public Backend
{
public:
    // How finished chunks reach host memory.
    enum class Readback {
        Auto,       // Persistent where glBufferStorage exists, else Plain
        Persistent, // copy into a persistently mapped buffer, then memcpy (GL 4.4 / ARB)
        Plain,      // copy into a mutable buffer, then glGetBufferSubData (any GL 4.3)
        // Diagnostic only: glGetBufferSubData straight from the buffer the shader wrote, as
        // before issue 27, when an NVIDIA H200 gave stale chunks (tests/gpu/device-check.sh
        // compares the paths there).
        ShaderBuffer,
    };

    struct Options
    {
        // Test hooks. shaderOverrides replaces a shader's source by name ("encode_phase",
        // "encode_learned", "sample_phase", "sample_learned") to inject a compile error; the
        // byte limits force small chunks so tests cover the chunking on small matrices.
        QHash<QString, QByteArray> shaderOverrides;
        qint64 maxBufferBytes = 0;       // 0: min(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, 16 MiB)
        int maxRowGroupsPerDispatch = 0; // 0: GL_MAX_COMPUTE_WORK_GROUP_COUNT[1]
        Readback readback = Readback::Auto;
        int ringSlots = 3; // chunks in flight; 1 waits for each chunk before the next
        // A KHR_debug context: the driver's messages are kept (debugMessages()) and an error or
        // undefined-behaviour message fails the call, as a GL error does.
        bool debugContext = false;
        // Binds the output buffer at a misaligned offset, a call every driver refuses (its
        // GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT is > 1), to prove that a refused call fails
        // the call instead of leaving stale data.
        bool misalignOutputBindingForTesting = false;
    };

    // Creates the context (OpenGL 4.3 core or later) and compiles the encode kernel; nullptr
    // with *why set when that is impossible (no QGuiApplication, no display, old driver,
    // compile or link error with its log). Shaders other than encode_phase compile on first use.
    static std::unique_ptr<GpuBackend> create(QString *why, const Options &options);
    static std::unique_ptr<GpuBackend> create(QString *why) { return create(why, Options()); }
    ~GpuBackend() override;

    QString id() const override { return QStringLiteral("gpu"); }
    // "GPU (<renderer>, OpenGL <version>)".
    QString description() const override;
    QString renderer() const;

    // Callable from any thread (calls are serialised): the GL work runs on the backend's own
    // thread, where its context was created, as Qt requires. Destroy it before the
    // QGuiApplication.
    bool encode(const EncodingSpec &spec, qint64 firstRow, qint64 rowCount, float *out,
                QString *error) override;
    bool sample(const EncodingSpec &spec, const MatrixWindow &window, int width, int height,
                float *out, QString *error) override;

    // Whether a kernel exists for the spec's scheme (other schemes belong to the CPU).
    static bool supports(const EncodingSpec &spec);

    // Where the last call's time went. GPU times come from GL_TIME_ELAPSED queries and are -1
    // where the driver has none (llvmpipe runs the work when it is waited for, so its figures
    // are near 0).
    struct CallTimings
    {
        double kernelMs = -1.0;   // the dispatches
        double transferMs = -1.0; // glCopyBufferSubData into the host-visible buffers
        double hostCopyMs = 0.0;  // the CPU copying finished chunks to the caller's memory
        qint64 chunks = 0;
    };
    CallTimings lastTimings() const;

    // Reads `bytes` (whole floats) of an idle device buffer into `out` through the same ring,
    // without kernels: the figure of the bus and this read-back path, for bench_backends;
    // lastTimings() then holds its parts.
    bool measureReadback(qint64 bytes, float *out, QString *error);

    // The read-back path in use (Persistent or Plain, or the diagnostic one), for messages.
    Readback readback() const;
    static QString readbackName(Readback readback);
    int storageBufferOffsetAlignment() const;
    // With Options::debugContext: the driver's messages since the backend started.
    QStringList debugMessages() const;

    // Test hook: destroys the context as a driver reset would; later calls fail as "lost".
    void loseContextForTesting();

private:
    GpuBackend();
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace pe
