#include "backends/gpubackend.h"

#include "backends/parallel.h"
#include "backends/samplingplan.h"
#include "schemes/sinusoidalscheme.h"

#include <QElapsedTimer>
#include <QFile>
#include <QGuiApplication>
#include <QOffscreenSurface>
#include <QOpenGLContext>
#include <QOpenGLFunctions_4_3_Core>
#include <QOpenGLShaderProgram>
#include <QOpenGLVersionFunctionsFactory>

#include <condition_variable>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace pe {

namespace {

// The bytes a vector's elements take, as upload() counts them.
template <class T> qint64 bytesOf(const std::vector<T> &values)
{
    return qint64(values.size()) * qint64(sizeof(T));
}

// Runs tasks on one long-lived thread. Qt lets a QOpenGLContext be made current only on the
// thread it belongs to, while callers (streamEncoding's std::async, the UI's workers) come from
// several threads; every GL call therefore happens here.
class GlThread
{
public:
    GlThread() : m_thread([this] { loop(); }) {}
    ~GlThread()
    {
        {
            std::lock_guard lock(m_mutex);
            m_quit = true;
        }
        m_wake.notify_all();
        m_thread.join();
    }

    // Runs `task` on the GL thread and waits for it.
    void run(const std::function<void()> &task)
    {
        std::lock_guard caller(m_callMutex); // one caller at a time
        std::unique_lock lock(m_mutex);
        m_task = &task;
        m_done = false;
        m_wake.notify_all();
        m_wake.wait(lock, [this] { return m_done; });
    }

private:
    void loop()
    {
        std::unique_lock lock(m_mutex);
        for (;;) {
            m_wake.wait(lock, [this] { return m_quit || m_task; });
            if (m_task) {
                const std::function<void()> *task = std::exchange(m_task, nullptr);
                lock.unlock();
                (*task)();
                lock.lock();
                m_done = true;
                m_wake.notify_all();
            } else if (m_quit) {
                return;
            }
        }
    }

    std::mutex m_callMutex;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    const std::function<void()> *m_task = nullptr;
    bool m_done = false;
    bool m_quit = false;
    std::thread m_thread; // last: it starts once the members above exist
};

QString glErrorName(GLenum e)
{
    switch (e) {
    case GL_INVALID_ENUM:
        return QStringLiteral("GL_INVALID_ENUM");
    case GL_INVALID_VALUE:
        return QStringLiteral("GL_INVALID_VALUE");
    case GL_INVALID_OPERATION:
        return QStringLiteral("GL_INVALID_OPERATION");
    case GL_INVALID_FRAMEBUFFER_OPERATION:
        return QStringLiteral("GL_INVALID_FRAMEBUFFER_OPERATION");
    case GL_OUT_OF_MEMORY:
        return QStringLiteral("GL_OUT_OF_MEMORY (the GPU is out of memory)");
    case 0x0507:
        return QStringLiteral("GL_CONTEXT_LOST (the GPU was reset)");
    default:
        return QStringLiteral("0x%1").arg(e, 4, 16, QLatin1Char('0'));
    }
}

// The shaders' std430 `Span` (resources/shaders/phasekernels.glsl).
struct GpuSpan
{
    quint32 first;
    quint32 count;
    quint32 run;
    float lowWeight;
    float highWeight;
    float scale;
};
static_assert(sizeof(GpuSpan) == 24);

std::vector<GpuSpan> gpuSpans(const std::vector<AxisSpan> &spans, qint64 origin,
                              const std::vector<int> *runs)
{
    std::vector<GpuSpan> out;
    out.reserve(spans.size());
    for (std::size_t i = 0; i < spans.size(); ++i) {
        const AxisSpan &s = spans[i];
        out.push_back({quint32(s.first - origin), quint32(s.count), runs ? quint32((*runs)[i]) : 0u,
                       float(s.lowWeight), float(s.highWeight), float(s.scale)});
    }
    return out;
}

void appendPhase(std::vector<quint32> &words, std::uint64_t a, std::uint64_t b)
{
    words.push_back(quint32(a));
    words.push_back(quint32(a >> 32));
    words.push_back(quint32(b));
    words.push_back(quint32(b >> 32));
}

quint32 seedKey(quint64 seed)
{
    return kernels::mix32(std::uint32_t(seed) + kernels::mix32(std::uint32_t(seed >> 32)));
}

// Rows one encode invocation computes (ROWS_PER_INVOCATION in the shaders): amortises the
// 64-bit product over exact additions; 16 is 2x faster than 1 on llvmpipe.
constexpr int rowsPerInvocation = 16;

// A chunk's bytes at most (whole rows, at least one): 16 MiB keeps three chunks in flight
// within 48 MiB of GPU and 48 MiB of host memory, and a 256 MiB matrix in 16 chunks, each
// costing tens of microseconds of GL calls (dispatch, copy, fence).
constexpr qint64 defaultChunkBytes = qint64(16) << 20;

// Host copies of finished chunks run on several cores: one core's memcpy (~10 GB/s) is slower
// than a PCIe 4/5 bus. Blocks of at least 4 MiB keep thread start-up small against the copy.
constexpr qint64 hostCopyBlockBytes = qint64(4) << 20;

// The longest wait for one chunk before the call fails (a hung GPU must not hang the caller).
constexpr GLuint64 chunkTimeoutNs = GLuint64(120) * 1000 * 1000 * 1000;

// Input buffer slots; the binding points are the shaders'.
enum Input { EncodeTable, Sample0, Sample1, Sample2, Sample3, Sample4, InputCount };

// The binding points the shaders write their results to.
constexpr GLuint encodeOutputBinding = 1;
constexpr GLuint sampleOutputBinding = 5;

// One slot of the read-back ring. The shaders write `compute`, which the CPU never reads or
// maps: reading chunks back straight from the shaders' buffer gave an NVIDIA H200 the first
// chunk's values for every later one (issue 27), and a driver may move a buffer the CPU reads
// into host memory. The GPU copies it into `staging`, which the CPU reads once `fence` has
// signalled.
struct ReadbackSlot
{
    GLuint compute = 0;
    GLuint staging = 0;
    GLsizeiptr bytes = 0;
    const char *mapped = nullptr; // Readback::Persistent: staging's persistent mapping
    GLsync fence = nullptr;       // set while a chunk is in flight
    float *destination = nullptr; // where the chunk in flight goes
    qint64 pendingBytes = 0;
    QString what; // "rows 10 to 20", for errors
};

// What runChunks() needs to know about chunk i.
struct Chunk
{
    qint64 bytes = 0;
    float *destination = nullptr;
    QString what;
};

QString debugTypeName(GLenum type)
{
    switch (type) {
    case GL_DEBUG_TYPE_ERROR:
        return QStringLiteral("error");
    case GL_DEBUG_TYPE_UNDEFINED_BEHAVIOR:
        return QStringLiteral("undefined behaviour");
    case GL_DEBUG_TYPE_DEPRECATED_BEHAVIOR:
        return QStringLiteral("deprecated");
    case GL_DEBUG_TYPE_PERFORMANCE:
        return QStringLiteral("performance");
    case GL_DEBUG_TYPE_PORTABILITY:
        return QStringLiteral("portability");
    default:
        return QStringLiteral("other");
    }
}

} // namespace

struct GpuBackend::Private
{
    Options options;
    std::unique_ptr<QOffscreenSurface> surface; // created and destroyed on the owner's thread
    QSurfaceFormat requested;
    std::unique_ptr<GlThread> thread;

    // Everything below is touched only on the GL thread.
    std::unique_ptr<QOpenGLContext> context;
    QOpenGLFunctions_4_3_Core *gl = nullptr;
    PFNGLBUFFERSTORAGEPROC bufferStorage = nullptr; // GL 4.4 or ARB_buffer_storage, else null
    // KHR_debug (core in 4.3, though Qt's 4.3 function table leaves it out).
    PFNGLGETDEBUGMESSAGELOGPROC getDebugMessageLog = nullptr;
    Readback mode = Readback::Plain;
    std::map<QString, std::unique_ptr<QOpenGLShaderProgram>> programs;
    GLuint inputs[InputCount] = {};
    GLsizeiptr inputSizes[InputCount] = {};
    std::vector<ReadbackSlot> ring;
    GLuint idleSource = 0; // measureReadback's device buffer, kept between calls
    qint64 idleSourceBytes = 0;
    std::vector<GLuint> kernelQueries, transferQueries;
    GLint maxGroups[3] = {65535, 65535, 65535};
    GLint64 maxStorageBlock = GLint64(1) << 27;
    GLint storageAlignment = 1;
    bool timerQueries = false;
    QString renderer;
    QString version;
    std::optional<EncodingSpec> tableSpec; // whose phase table inputs[EncodeTable] holds
    CallTimings timings;
    QStringList debugLog;

    bool initialize(QString *why);
    void queryLimits();
    void release();
    void releaseRing();
    bool begin(QString *error);
    bool checkErrors(const QString &what, QString *error);
    QStringList drainDebugLog();
    // QOpenGLShaderProgram::setUniformValue(GLuint) calls glUniform1i, wrong for a uint.
    void setUint(QOpenGLShaderProgram *shader, const char *name, GLuint value)
    {
        gl->glUniform1ui(shader->uniformLocation(name), value);
    }
    QOpenGLShaderProgram *program(const QString &name, QString *error);
    bool upload(Input slot, const void *data, qint64 bytes, const QString &what, QString *error);
    qint64 bufferLimit() const;
    int groupLimit(int axis) const;
    void beginTimer(std::vector<GLuint> &pool, std::size_t index);
    void endTimer();
    double collectTimers(const std::vector<GLuint> &pool, std::size_t used);

    GLuint makeBuffer(GLsizeiptr bytes, GLbitfield storageFlags, GLenum usage);
    bool reserveRing(qint64 bytes, QString *error);
    void bindOutput(GLuint binding, GLuint buffer);
    bool runChunks(qint64 count, qint64 slotBytes, GLuint binding,
                   const std::function<Chunk(qint64)> &chunk,
                   const std::function<void(qint64)> &dispatch, QString *error, GLuint source = 0);
    bool readBack(ReadbackSlot &slot, QString *error);
    void abandonChunks();

    bool encode(const EncodingSpec &spec, qint64 firstRow, qint64 rowCount, float *out,
                QString *error);
    bool sample(const EncodingSpec &spec, const MatrixWindow &window, int width, int height,
                float *out, QString *error);
    bool uploadSamplingPlan(const SamplingPlan &plan, QString *error);
    bool measureReadback(qint64 bytes, float *out, QString *error);
};

bool GpuBackend::Private::initialize(QString *why)
{
    const QSurfaceFormat format = requested;
    context = std::make_unique<QOpenGLContext>();
    context->setFormat(format);
    const QString platform = QGuiApplication::platformName();
    if (!context->create()) {
        *why =
            QStringLiteral("could not create an OpenGL %1.%2 core context on Qt's \"%3\" platform")
                .arg(format.majorVersion())
                .arg(format.minorVersion())
                .arg(platform);
        if (platform == QLatin1String("offscreen"))
            *why += QStringLiteral(" (it has no OpenGL without an X display; run under a display "
                                   "or xvfb-run)");
        return false;
    }
    const QSurfaceFormat got = context->format();
    if (got.version() < qMakePair(4, 3) || context->isOpenGLES()) {
        *why =
            QStringLiteral("the driver offers %1 %2.%3; compute shaders need desktop OpenGL 4.3")
                .arg(context->isOpenGLES() ? QStringLiteral("OpenGL ES") : QStringLiteral("OpenGL"))
                .arg(got.majorVersion())
                .arg(got.minorVersion());
        return false;
    }
    if (!context->makeCurrent(surface.get())) {
        *why = QStringLiteral("could not make the OpenGL context current on an offscreen surface");
        return false;
    }
    gl = QOpenGLVersionFunctionsFactory::get<QOpenGLFunctions_4_3_Core>(context.get());
    if (!gl || !gl->initializeOpenGLFunctions()) {
        *why = QStringLiteral("the OpenGL 4.3 core functions could not be resolved");
        return false;
    }
    queryLimits();
    // NVIDIA gives exactly the 4.3 asked for, so buffer storage comes as ARB_buffer_storage there.
    if (got.version() >= qMakePair(4, 4) ||
        context->hasExtension(QByteArrayLiteral("GL_ARB_buffer_storage")))
        bufferStorage =
            reinterpret_cast<PFNGLBUFFERSTORAGEPROC>(context->getProcAddress("glBufferStorage"));
    mode = options.readback;
    if (mode == Readback::Auto)
        mode = bufferStorage ? Readback::Persistent : Readback::Plain;
    if (mode == Readback::Persistent && !bufferStorage) {
        *why = QStringLiteral("persistent read-back needs glBufferStorage (OpenGL 4.4 or "
                              "GL_ARB_buffer_storage), which this driver lacks");
        return false;
    }
    if (options.debugContext) {
        // Messages queue in the context's log (no callback: they are read on the GL thread
        // after each dispatch), in call order, every severity.
        getDebugMessageLog = reinterpret_cast<PFNGLGETDEBUGMESSAGELOGPROC>(
            context->getProcAddress("glGetDebugMessageLog"));
        const auto control = reinterpret_cast<PFNGLDEBUGMESSAGECONTROLPROC>(
            context->getProcAddress("glDebugMessageControl"));
        if (!getDebugMessageLog || !control) {
            *why = QStringLiteral("the driver's debug context has no KHR_debug functions");
            return false;
        }
        gl->glEnable(GL_DEBUG_OUTPUT);
        gl->glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
        control(GL_DONT_CARE, GL_DONT_CARE, GL_DONT_CARE, 0, nullptr, GL_TRUE);
    }
    gl->glGenBuffers(InputCount, inputs);
    if (!checkErrors(QStringLiteral("querying the compute limits"), why))
        return false;
    // Proves compute shaders work here; the other kernels compile on first use.
    return program(QStringLiteral("encode_phase"), why) != nullptr;
}

void GpuBackend::Private::queryLimits()
{
    renderer = QString::fromLatin1(reinterpret_cast<const char *>(gl->glGetString(GL_RENDERER)));
    version = QString::fromLatin1(reinterpret_cast<const char *>(gl->glGetString(GL_VERSION)));
    for (GLuint axis = 0; axis < 3; ++axis)
        gl->glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, axis, &maxGroups[axis]);
    gl->glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &maxStorageBlock);
    gl->glGetIntegerv(GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT, &storageAlignment);
    GLint timerBits = 0;
    gl->glGetQueryiv(GL_TIME_ELAPSED, GL_QUERY_COUNTER_BITS, &timerBits);
    timerQueries = timerBits > 0;
}

void GpuBackend::Private::releaseRing()
{
    for (ReadbackSlot &slot : ring) {
        if (slot.fence)
            gl->glDeleteSync(slot.fence);
        if (slot.mapped) {
            gl->glBindBuffer(GL_COPY_WRITE_BUFFER, slot.staging);
            gl->glUnmapBuffer(GL_COPY_WRITE_BUFFER);
        }
        for (GLuint buffer : {slot.compute, slot.staging})
            if (buffer)
                gl->glDeleteBuffers(1, &buffer);
    }
    ring.clear();
}

void GpuBackend::Private::release()
{
    if (gl && context && context->isValid() && context->makeCurrent(surface.get())) {
        releaseRing();
        gl->glDeleteBuffers(InputCount, inputs);
        if (idleSource)
            gl->glDeleteBuffers(1, &idleSource);
        for (const std::vector<GLuint> *pool : {&kernelQueries, &transferQueries})
            if (!pool->empty())
                gl->glDeleteQueries(GLsizei(pool->size()), pool->data());
        programs.clear();
        context->doneCurrent();
    }
    ring.clear();
    programs.clear();
    context.reset();
}

bool GpuBackend::Private::begin(QString *error)
{
    if (!context || !context->isValid()) {
        *error = QStringLiteral("the OpenGL context was lost");
        return false;
    }
    if (!context->makeCurrent(surface.get())) {
        *error = QStringLiteral("the OpenGL context could not be made current (lost?)");
        return false;
    }
    while (gl->glGetError() != GL_NO_ERROR) {
        // Errors from before this call are not this call's.
    }
    drainDebugLog();
    timings = {};
    return true;
}

// Reads the debug context's queued messages into debugLog; returns the ones that mean a call
// was refused or its result is undefined.
QStringList GpuBackend::Private::drainDebugLog()
{
    QStringList failures;
    if (!getDebugMessageLog)
        return failures;
    constexpr GLuint batch = 16;
    GLint maxLength = 0;
    gl->glGetIntegerv(GL_MAX_DEBUG_MESSAGE_LENGTH, &maxLength);
    std::vector<GLchar> text(std::size_t(std::max(maxLength, 256)) * batch);
    GLenum sources[batch], types[batch], severities[batch];
    GLuint ids[batch];
    GLsizei lengths[batch];
    for (;;) {
        const GLuint count = getDebugMessageLog(batch, GLsizei(text.size()), sources, types, ids,
                                                severities, lengths, text.data());
        if (count == 0)
            break;
        const GLchar *at = text.data();
        for (GLuint i = 0; i < count; ++i) {
            // lengths include the terminating NUL.
            const QString message = QString::fromUtf8(at, std::max(0, lengths[i] - 1)).trimmed();
            at += lengths[i];
            const QString line = QStringLiteral("%1 (id %2): %3")
                                     .arg(debugTypeName(types[i]))
                                     .arg(ids[i])
                                     .arg(message);
            if (debugLog.size() < 1000)
                debugLog += line;
            if (types[i] == GL_DEBUG_TYPE_ERROR || types[i] == GL_DEBUG_TYPE_UNDEFINED_BEHAVIOR)
                failures += line;
        }
    }
    return failures;
}

// After every dispatch, copy and read-back: a call the GL refused leaves the buffers as they
// were, so going on would hand the caller stale numbers; the call fails instead.
bool GpuBackend::Private::checkErrors(const QString &what, QString *error)
{
    QStringList names;
    for (GLenum e = gl->glGetError(); e != GL_NO_ERROR && names.size() < 8; e = gl->glGetError())
        names += glErrorName(e);
    const QStringList messages = drainDebugLog();
    if (names.isEmpty() && messages.isEmpty())
        return true;
    if (names.isEmpty())
        *error = QStringLiteral("the OpenGL driver reported %1 while %2")
                     .arg(messages.join(QStringLiteral("; ")), what);
    else
        *error =
            QStringLiteral("OpenGL error %1 while %2").arg(names.join(QStringLiteral(", ")), what);
    if (!names.isEmpty() && !messages.isEmpty())
        *error += QStringLiteral(" (the driver: %1)").arg(messages.join(QStringLiteral("; ")));
    return false;
}

QOpenGLShaderProgram *GpuBackend::Private::program(const QString &name, QString *error)
{
    if (auto it = programs.find(name); it != programs.end())
        return it->second.get();
    const auto read = [error](const QString &path, QByteArray *text) {
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly)) {
            *error = QStringLiteral("cannot read the shader %1: %2").arg(path, file.errorString());
            return false;
        }
        *text = file.readAll();
        return true;
    };
    QByteArray common, body;
    if (!read(QStringLiteral(":/shaders/phasekernels.glsl"), &common))
        return nullptr;
    if (options.shaderOverrides.contains(name))
        body = options.shaderOverrides.value(name);
    else if (!read(QStringLiteral(":/shaders/%1.comp").arg(name), &body))
        return nullptr;
    // "#line 1 1": compile logs then give line numbers within the .comp file (source 1).
    const QByteArray source = "#version 430 core\n#define ROWS_PER_INVOCATION " +
                              QByteArray::number(rowsPerInvocation) + "u\n#line 1 0\n" + common +
                              "\n#line 1 1\n" + body;
    auto program = std::make_unique<QOpenGLShaderProgram>();
    if (!program->addShaderFromSourceCode(QOpenGLShader::Compute, source)) {
        *error = QStringLiteral("the compute shader %1.comp does not compile: %2")
                     .arg(name, program->log().trimmed());
        return nullptr;
    }
    if (!program->link()) {
        *error = QStringLiteral("the compute shader %1.comp does not link: %2")
                     .arg(name, program->log().trimmed());
        return nullptr;
    }
    return programs.emplace(name, std::move(program)).first->second.get();
}

qint64 GpuBackend::Private::bufferLimit() const
{
    qint64 limit = std::min<qint64>(maxStorageBlock, defaultChunkBytes);
    if (options.maxBufferBytes > 0)
        limit = std::min(limit, options.maxBufferBytes);
    return limit;
}

int GpuBackend::Private::groupLimit(int axis) const
{
    const int limit = maxGroups[axis];
    return axis == 1 && options.maxRowGroupsPerDispatch > 0
               ? std::min(limit, options.maxRowGroupsPerDispatch)
               : limit;
}

bool GpuBackend::Private::upload(Input slot, const void *data, qint64 bytes, const QString &what,
                                 QString *error)
{
    const qint64 size = std::max<qint64>(bytes, 16);
    if (size > maxStorageBlock) {
        *error = QStringLiteral("%1 (%2) exceed the driver's storage block limit of %3")
                     .arg(what, formatBytes(double(size)), formatBytes(double(maxStorageBlock)));
        return false;
    }
    gl->glBindBuffer(GL_SHADER_STORAGE_BUFFER, inputs[slot]);
    if (inputSizes[slot] < size) {
        gl->glBufferData(GL_SHADER_STORAGE_BUFFER, GLsizeiptr(size), nullptr, GL_DYNAMIC_DRAW);
        inputSizes[slot] = GLsizeiptr(size);
    }
    if (bytes > 0)
        gl->glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, GLsizeiptr(bytes), data);
    if (checkErrors(QStringLiteral("uploading ") + what, error))
        return true;
    inputSizes[slot] = 0;
    return false;
}

void GpuBackend::Private::beginTimer(std::vector<GLuint> &pool, std::size_t index)
{
    if (!timerQueries)
        return;
    if (pool.size() <= index) {
        const std::size_t old = pool.size();
        pool.resize(std::max(index + 1, old * 2));
        gl->glGenQueries(GLsizei(pool.size() - old), pool.data() + old);
    }
    gl->glBeginQuery(GL_TIME_ELAPSED, pool[index]);
}

void GpuBackend::Private::endTimer()
{
    if (timerQueries)
        gl->glEndQuery(GL_TIME_ELAPSED);
}

// Milliseconds of the first `used` queries of `pool`, or -1 without timer queries.
double GpuBackend::Private::collectTimers(const std::vector<GLuint> &pool, std::size_t used)
{
    if (!timerQueries)
        return -1.0;
    double ns = 0.0;
    for (std::size_t i = 0; i < used; ++i) {
        GLuint64 elapsed = 0;
        gl->glGetQueryObjectui64v(pool[i], GL_QUERY_RESULT, &elapsed);
        ns += double(elapsed);
    }
    return ns * 1e-6;
}

// A buffer bound to GL_COPY_WRITE_BUFFER on return: immutable storage with `storageFlags` on the
// persistent path, else mutable with `usage`, as on a driver without glBufferStorage.
GLuint GpuBackend::Private::makeBuffer(GLsizeiptr bytes, GLbitfield storageFlags, GLenum usage)
{
    GLuint buffer = 0;
    gl->glGenBuffers(1, &buffer);
    gl->glBindBuffer(GL_COPY_WRITE_BUFFER, buffer);
    if (mode == Readback::Persistent)
        bufferStorage(GL_COPY_WRITE_BUFFER, bytes, nullptr, storageFlags);
    else
        gl->glBufferData(GL_COPY_WRITE_BUFFER, bytes, nullptr, usage);
    return buffer;
}

// Ring slots of at least `bytes`, allocated once and grown in powers of two up to the chunk
// limit, so that calls of similar sizes allocate nothing.
bool GpuBackend::Private::reserveRing(qint64 bytes, QString *error)
{
    const auto slotCount = std::size_t(std::max(1, options.ringSlots));
    if (ring.size() == slotCount && ring.front().bytes >= bytes)
        return true;
    qint64 size = 64 << 10;
    while (size < bytes)
        size *= 2;
    size = std::min(size, std::max(bytes, bufferLimit()));
    if (size > maxStorageBlock) {
        *error = QStringLiteral("a %1 buffer exceeds the driver's storage block limit of %2")
                     .arg(formatBytes(double(size)), formatBytes(double(maxStorageBlock)));
        return false;
    }
    releaseRing();
    ring.resize(slotCount);
    constexpr GLbitfield readable = GL_MAP_READ_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;
    for (ReadbackSlot &slot : ring) {
        slot.bytes = GLsizeiptr(size);
        // GPU-only: no map flags, so the driver keeps it in device memory.
        slot.compute = makeBuffer(slot.bytes, 0, GL_DYNAMIC_COPY);
        if (mode == Readback::ShaderBuffer)
            continue;
        // Host memory the GPU copies into (CLIENT_STORAGE), mapped once for good: coherent,
        // so a signalled fence is all the CPU waits for (ARB_buffer_storage).
        slot.staging = makeBuffer(slot.bytes, readable | GL_CLIENT_STORAGE_BIT, GL_STREAM_READ);
        if (mode == Readback::Persistent)
            slot.mapped = static_cast<const char *>(
                gl->glMapBufferRange(GL_COPY_WRITE_BUFFER, 0, slot.bytes, readable));
    }
    const QString what = QStringLiteral("allocating %1 read-back slots of %2")
                             .arg(slotCount)
                             .arg(formatBytes(double(size)));
    bool ok = checkErrors(what, error);
    if (ok && mode == Readback::Persistent &&
        std::any_of(ring.begin(), ring.end(), [](const ReadbackSlot &s) { return !s.mapped; })) {
        *error = QStringLiteral("the driver could not map a read-back buffer while %1").arg(what);
        ok = false;
    }
    if (!ok)
        releaseRing();
    return ok;
}

void GpuBackend::Private::bindOutput(GLuint binding, GLuint buffer)
{
    if (options.misalignOutputBindingForTesting)
        gl->glBindBufferRange(GL_SHADER_STORAGE_BUFFER, binding, buffer, 1, 16);
    else
        gl->glBindBufferBase(GL_SHADER_STORAGE_BUFFER, binding, buffer); // offset 0: aligned
}

// Runs `count` chunks through the read-back ring. For chunk i, `dispatch(i)` binds what the
// shader reads, sets its uniforms and dispatches (the output buffer is bound here); the result
// is copied into the slot's host-visible buffer behind a fence, and the CPU copies a chunk out
// only when its slot comes round again, so up to ring.size() chunks compute meanwhile. Without
// `dispatch`, the chunks copy `source` instead (measureReadback). Every chunk's calls are
// checked; on failure nothing more is written to the caller's memory.
bool GpuBackend::Private::runChunks(qint64 count, qint64 slotBytes, GLuint binding,
                                    const std::function<Chunk(qint64)> &chunk,
                                    const std::function<void(qint64)> &dispatch, QString *error,
                                    GLuint source)
{
    if (!reserveRing(slotBytes, error))
        return false;
    const auto fail = [this] {
        abandonChunks();
        return false;
    };
    const auto slotCount = qint64(ring.size());
    const bool copies = mode != Readback::ShaderBuffer;
    for (qint64 i = 0; i < count; ++i) {
        ReadbackSlot &slot = ring[std::size_t(i % slotCount)];
        if (slot.fence && !readBack(slot, error))
            return fail();
        const Chunk c = chunk(i);
        slot.destination = c.destination;
        slot.pendingBytes = c.bytes;
        slot.what = c.what;
        if (dispatch) {
            bindOutput(binding, slot.compute);
            beginTimer(kernelQueries, std::size_t(i));
            dispatch(i);
            endTimer();
            if (!checkErrors(QStringLiteral("computing ") + c.what, error))
                return fail();
            // The copy or read below must see the shaders' writes (GL 4.6, 7.13.2).
            gl->glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
        }
        if (copies) {
            beginTimer(transferQueries, std::size_t(i));
            gl->glBindBuffer(GL_COPY_READ_BUFFER, source ? source : slot.compute);
            gl->glBindBuffer(GL_COPY_WRITE_BUFFER, slot.staging);
            gl->glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, 0, 0,
                                    GLsizeiptr(c.bytes));
            endTimer();
        }
        slot.fence = gl->glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
        gl->glFlush(); // the GPU starts on this chunk while the CPU copies out an earlier one
        if (!checkErrors(QStringLiteral("copying ") + c.what + QStringLiteral(" to host memory"),
                         error))
            return fail();
    }
    for (qint64 i = std::max<qint64>(0, count - slotCount); i < count; ++i)
        if (!readBack(ring[std::size_t(i % slotCount)], error))
            return fail();
    timings.chunks = count;
    timings.kernelMs = dispatch ? collectTimers(kernelQueries, std::size_t(count)) : 0.0;
    timings.transferMs = copies ? collectTimers(transferQueries, std::size_t(count)) : 0.0;
    return checkErrors(QStringLiteral("reading the timers"), error);
}

// Waits for a slot's chunk and copies it to the caller's memory.
bool GpuBackend::Private::readBack(ReadbackSlot &slot, QString *error)
{
    const GLenum status =
        gl->glClientWaitSync(slot.fence, GL_SYNC_FLUSH_COMMANDS_BIT, chunkTimeoutNs);
    gl->glDeleteSync(slot.fence);
    slot.fence = nullptr;
    if (status != GL_ALREADY_SIGNALED && status != GL_CONDITION_SATISFIED) {
        *error = status == GL_TIMEOUT_EXPIRED
                     ? QStringLiteral("the GPU did not finish %1 within %2 s")
                           .arg(slot.what)
                           .arg(chunkTimeoutNs / 1000000000)
                     : QStringLiteral("waiting for %1 failed").arg(slot.what);
        return false;
    }
    QElapsedTimer timer;
    timer.start();
    if (mode == Readback::Persistent) {
        char *to = reinterpret_cast<char *>(slot.destination);
        const char *from = slot.mapped;
        parallelFor(0, slot.pendingBytes, hardwareThreads(), hostCopyBlockBytes,
                    [to, from](qint64 lo, qint64 hi) {
                        std::memcpy(to + lo, from + lo, std::size_t(hi - lo));
                    });
    } else {
        // Plain reads its staging copy; ShaderBuffer the very buffer the shader wrote.
        gl->glBindBuffer(GL_COPY_READ_BUFFER,
                         mode == Readback::Plain ? slot.staging : slot.compute);
        gl->glGetBufferSubData(GL_COPY_READ_BUFFER, 0, GLsizeiptr(slot.pendingBytes),
                               slot.destination);
    }
    timings.hostCopyMs += double(timer.nsecsElapsed()) * 1e-6;
    return checkErrors(QStringLiteral("reading back ") + slot.what, error);
}

// After a failure: chunks still in flight are dropped, never copied to the caller's memory.
void GpuBackend::Private::abandonChunks()
{
    for (ReadbackSlot &slot : ring)
        if (slot.fence) {
            gl->glDeleteSync(slot.fence);
            slot.fence = nullptr;
        }
}

bool GpuBackend::Private::encode(const EncodingSpec &spec, qint64 firstRow, qint64 rowCount,
                                 float *out, QString *error)
{
    timings = {};
    if (const QString problem = encodeRequestProblem(spec, firstRow, rowCount);
        !problem.isEmpty()) {
        *error = problem;
        return false;
    }
    if (!supports(spec)) {
        *error =
            QStringLiteral("the GPU backend has no kernel for the %1 scheme").arg(spec.schemeId());
        return false;
    }
    if (rowCount == 0)
        return true;
    if (!begin(error))
        return false;
    const MatrixPlan matrixPlan = spec.plan();
    const auto *phaseColumns = std::get_if<PhaseColumnsPlan>(&matrixPlan);
    const auto *hashed = std::get_if<HashedUniformPlan>(&matrixPlan);
    QOpenGLShaderProgram *shader = program(
        phaseColumns ? QStringLiteral("encode_phase") : QStringLiteral("encode_learned"), error);
    if (!shader)
        return false;
    if (phaseColumns && tableSpec != spec) {
        tableSpec.reset();
        std::vector<quint32> words;
        words.reserve(std::size_t(spec.dims) * 4);
        for (const kernels::ColumnPhase &c : phaseColumns->columns)
            appendPhase(words, c.step, c.offset);
        if (!upload(EncodeTable, words.data(), bytesOf(words), QStringLiteral("the phase table"),
                    error))
            return false;
        tableSpec = spec;
    }

    constexpr int localX = 64, localY = 4; // the shaders' local_size
    constexpr int rowsPerGroup = localY * rowsPerInvocation;
    const qint64 dims = spec.dims;
    const qint64 rowBytes = dims * qint64(sizeof(float));
    const qint64 groupsX = (dims + localX - 1) / localX;
    if (groupsX > groupLimit(0)) {
        *error = QStringLiteral("%1 dims need %2 work groups, more than the driver's %3")
                     .arg(dims)
                     .arg(groupsX)
                     .arg(groupLimit(0));
        return false;
    }
    // Chunks of whole rows within the buffer limit (one row where a row is larger); within a
    // chunk, dispatches of at most the work-group count limit, placed by the outRow uniform
    // (binding offsets would have to be multiples of GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT,
    // which a row of 333 floats, 1,332 bytes, is not).
    const qint64 rowsPerChunk = std::max<qint64>(1, bufferLimit() / rowBytes);
    const qint64 rowsPerDispatch = qint64(groupLimit(1)) * rowsPerGroup;
    const auto rowsIn = [&](qint64 i) {
        return std::min(rowsPerChunk, rowCount - i * rowsPerChunk);
    };
    const auto chunk = [&](qint64 i) {
        const qint64 first = firstRow + i * rowsPerChunk;
        return Chunk{rowsIn(i) * rowBytes, out + i * rowsPerChunk * dims,
                     QStringLiteral("rows %1 to %2").arg(first).arg(first + rowsIn(i))};
    };
    // Everything a dispatch reads is set again for every chunk: nothing rides on state left
    // from before the previous chunk's copy.
    const auto dispatch = [&](qint64 i) {
        shader->bind();
        gl->glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, inputs[EncodeTable]);
        setUint(shader, "dims", GLuint(dims));
        if (hashed)
            setUint(shader, "seedKey", GLuint(seedKey(hashed->seed)));
        const qint64 rows = rowsIn(i);
        for (qint64 sub = 0; sub < rows; sub += rowsPerDispatch) {
            const qint64 subRows = std::min(rowsPerDispatch, rows - sub);
            setUint(shader, "firstRow", GLuint(firstRow + i * rowsPerChunk + sub));
            setUint(shader, "rowCount", GLuint(subRows));
            setUint(shader, "outRow", GLuint(sub));
            gl->glDispatchCompute(GLuint(groupsX),
                                  GLuint((subRows + rowsPerGroup - 1) / rowsPerGroup), 1);
        }
    };
    const qint64 chunks = (rowCount + rowsPerChunk - 1) / rowsPerChunk;
    return runChunks(chunks, std::min(rowsPerChunk, rowCount) * rowBytes, encodeOutputBinding,
                     chunk, dispatch, error);
}

bool GpuBackend::Private::uploadSamplingPlan(const SamplingPlan &plan, QString *error)
{
    const std::vector<GpuSpan> columns = gpuSpans(plan.columns, plan.firstColumn, nullptr);
    if (!upload(Sample4, columns.data(), bytesOf(columns), QStringLiteral("the column spans"),
                error))
        return false;
    if (plan.closedForm) {
        std::vector<quint32> phases, runs;
        std::vector<float> dirichlet;
        for (const kernels::ColumnPhase &c : plan.phases)
            appendPhase(phases, c.step, c.offset);
        for (const PhaseRun &run : plan.runs) {
            for (std::size_t j = 0; j < run.centre.size(); ++j)
                appendPhase(runs, run.centre[j], run.span[j]);
            dirichlet.insert(dirichlet.end(), run.dirichlet.begin(), run.dirichlet.end());
        }
        const std::vector<GpuSpan> rows = gpuSpans(plan.rows, 0, &plan.rowRun);
        return upload(Sample0, phases.data(), bytesOf(phases), QStringLiteral("phases"), error) &&
               upload(Sample1, runs.data(), bytesOf(runs), QStringLiteral("the closed-form tables"),
                      error) &&
               upload(Sample2, dirichlet.data(), bytesOf(dirichlet),
                      QStringLiteral("the Dirichlet kernels"), error) &&
               upload(Sample3, rows.data(), bytesOf(rows), QStringLiteral("the row spans"), error);
    }
    std::vector<quint32> rows(plan.sampleRows.begin(), plan.sampleRows.end());
    std::vector<quint32> begins(plan.sampleBegin.begin(), plan.sampleBegin.end());
    return upload(Sample0, rows.data(), bytesOf(rows), QStringLiteral("sampled rows"), error) &&
           upload(Sample1, plan.sampleWeights.data(), bytesOf(plan.sampleWeights),
                  QStringLiteral("row weights"), error) &&
           upload(Sample2, begins.data(), bytesOf(begins), QStringLiteral("row offsets"), error);
}

bool GpuBackend::Private::sample(const EncodingSpec &spec, const MatrixWindow &window, int width,
                                 int height, float *out, QString *error)
{
    timings = {};
    const std::optional<SamplingPlan> plan = buildSamplingPlan(spec, window, width, height, error);
    if (!plan)
        return false;
    if (!supports(spec)) {
        *error =
            QStringLiteral("the GPU backend has no kernel for the %1 scheme").arg(spec.schemeId());
        return false;
    }
    if (!begin(error))
        return false;
    QOpenGLShaderProgram *shader = program(plan->closedForm ? QStringLiteral("sample_phase")
                                                            : QStringLiteral("sample_learned"),
                                           error);
    if (!shader || !uploadSamplingPlan(*plan, error))
        return false;

    constexpr int local = 16; // the shaders' local_size in x and y
    const qint64 rowBytes = qint64(width) * qint64(sizeof(float));
    const qint64 bandRows =
        std::clamp<qint64>(bufferLimit() / rowBytes, 1, qint64(groupLimit(1)) * local);
    const qint64 groupsX = (width + local - 1) / local;
    if (groupsX > groupLimit(0)) {
        *error = QStringLiteral("%1 pixels across need more work groups than the driver's %2")
                     .arg(width)
                     .arg(groupLimit(0));
        return false;
    }
    const auto rowsIn = [&](qint64 i) { return std::min<qint64>(bandRows, height - i * bandRows); };
    const auto chunk = [&](qint64 i) {
        const qint64 y0 = i * bandRows;
        return Chunk{rowsIn(i) * rowBytes, out + y0 * width,
                     QStringLiteral("pixel rows %1 to %2").arg(y0).arg(y0 + rowsIn(i))};
    };
    const auto dispatch = [&](qint64 i) {
        shader->bind();
        for (GLuint b = 0; b < 5; ++b)
            gl->glBindBufferBase(GL_SHADER_STORAGE_BUFFER, b, inputs[Sample0 + b]);
        setUint(shader, "width", GLuint(width));
        setUint(shader, "height", GLuint(height));
        if (plan->closedForm) {
            setUint(shader, "columnCount", GLuint(plan->columnCount));
        } else {
            setUint(shader, "firstColumn", GLuint(plan->firstColumn));
            setUint(shader, "seedKey",
                    GLuint(seedKey(std::get<HashedUniformPlan>(plan->matrix).seed)));
        }
        setUint(shader, "firstY", GLuint(i * bandRows));
        gl->glDispatchCompute(GLuint(groupsX), GLuint((rowsIn(i) + local - 1) / local), 1);
    };
    const qint64 bands = (height + bandRows - 1) / bandRows;
    return runChunks(bands, std::min<qint64>(bandRows, height) * rowBytes, sampleOutputBinding,
                     chunk, dispatch, error);
}

bool GpuBackend::Private::measureReadback(qint64 bytes, float *out, QString *error)
{
    timings = {};
    if (bytes <= 0 || bytes % qint64(sizeof(float)) != 0) {
        *error = QStringLiteral("the read-back test needs a positive number of floats");
        return false;
    }
    if (!begin(error))
        return false;
    const qint64 chunkBytes = bufferLimit() / qint64(sizeof(float)) * qint64(sizeof(float));
    // One chunk-sized device buffer, copied once per chunk: the bus does not care which.
    if (idleSourceBytes < chunkBytes) {
        if (!idleSource)
            gl->glGenBuffers(1, &idleSource);
        gl->glBindBuffer(GL_COPY_READ_BUFFER, idleSource);
        gl->glBufferData(GL_COPY_READ_BUFFER, GLsizeiptr(chunkBytes), nullptr, GL_STATIC_COPY);
        const float zero = 0.0f;
        gl->glClearBufferData(GL_COPY_READ_BUFFER, GL_R32F, GL_RED, GL_FLOAT, &zero);
        idleSourceBytes = chunkBytes;
        if (!checkErrors(QStringLiteral("preparing the read-back test"), error)) {
            idleSourceBytes = 0;
            return false;
        }
    }
    const auto chunk = [&](qint64 i) {
        const qint64 first = i * chunkBytes;
        const qint64 size = std::min(chunkBytes, bytes - first);
        return Chunk{
            size, out + first / qint64(sizeof(float)),
            QStringLiteral("bytes %1 to %2 of the read-back test").arg(first).arg(first + size)};
    };
    return runChunks((bytes + chunkBytes - 1) / chunkBytes, std::min(chunkBytes, bytes), 0, chunk,
                     {}, error, idleSource);
}

GpuBackend::GpuBackend() : d(std::make_unique<Private>()) {}

GpuBackend::~GpuBackend()
{
    if (d->thread)
        d->thread->run([this] { d->release(); });
    d->thread.reset();
    d->surface.reset();
}

std::unique_ptr<GpuBackend> GpuBackend::create(QString *why, const Options &options)
{
    QString reason;
    if (!qobject_cast<QGuiApplication *>(QCoreApplication::instance())) {
        if (why)
            *why =
                QStringLiteral("the GPU backend needs a QGuiApplication and this program has none");
        return nullptr;
    }
    std::unique_ptr<GpuBackend> backend(new GpuBackend);
    Private &p = *backend->d;
    p.options = options;
    QSurfaceFormat format;
    format.setRenderableType(QSurfaceFormat::OpenGL);
    format.setVersion(4, 3);
    format.setProfile(QSurfaceFormat::CoreProfile);
    // Where the driver can tell, a GPU reset then shows as isValid() == false ("lost").
    format.setOption(QSurfaceFormat::ResetNotification);
    if (options.debugContext)
        format.setOption(QSurfaceFormat::DebugContext);
    p.requested = format;
    p.surface = std::make_unique<QOffscreenSurface>();
    p.surface->setFormat(format);
    p.surface->create();
    if (!p.surface->isValid()) {
        if (why)
            *why = QStringLiteral("could not create an offscreen surface on Qt's \"%1\" platform")
                       .arg(QGuiApplication::platformName());
        return nullptr;
    }
    p.thread = std::make_unique<GlThread>();
    bool ok = false;
    p.thread->run([&] { ok = p.initialize(&reason); });
    if (!ok) {
        if (why)
            *why = reason;
        return nullptr; // the destructor releases what initialize() made, on the GL thread
    }
    return backend;
}

QString GpuBackend::description() const
{
    return QStringLiteral("GPU (%1, OpenGL %2)").arg(d->renderer, d->version);
}

QString GpuBackend::renderer() const
{
    return d->renderer;
}

bool GpuBackend::supports(const EncodingSpec &spec)
{
    // The phase table and the hash have kernels; a RowsPlan is a CPU formula by definition.
    const MatrixPlan plan = spec.plan();
    return !std::holds_alternative<RowsPlan>(plan);
}

bool GpuBackend::encode(const EncodingSpec &spec, qint64 firstRow, qint64 rowCount, float *out,
                        QString *error)
{
    bool ok = false;
    QString message;
    d->thread->run([&] { ok = d->encode(spec, firstRow, rowCount, out, &message); });
    if (!ok && error)
        *error = message;
    return ok;
}

bool GpuBackend::sample(const EncodingSpec &spec, const MatrixWindow &window, int width, int height,
                        float *out, QString *error)
{
    bool ok = false;
    QString message;
    d->thread->run([&] { ok = d->sample(spec, window, width, height, out, &message); });
    if (!ok && error)
        *error = message;
    return ok;
}

bool GpuBackend::measureReadback(qint64 bytes, float *out, QString *error)
{
    bool ok = false;
    QString message;
    d->thread->run([&] { ok = d->measureReadback(bytes, out, &message); });
    if (!ok && error)
        *error = message;
    return ok;
}

GpuBackend::CallTimings GpuBackend::lastTimings() const
{
    CallTimings timings;
    d->thread->run([&] { timings = d->timings; });
    return timings;
}

GpuBackend::Readback GpuBackend::readback() const
{
    return d->mode;
}

QString GpuBackend::readbackName(Readback readback)
{
    switch (readback) {
    case Readback::Auto:
        return QStringLiteral("auto");
    case Readback::Persistent:
        return QStringLiteral("persistent mapped buffers");
    case Readback::Plain:
        return QStringLiteral("glGetBufferSubData from a copy");
    case Readback::ShaderBuffer:
        return QStringLiteral("glGetBufferSubData from the shader's buffer (diagnostic)");
    }
    return {};
}

int GpuBackend::storageBufferOffsetAlignment() const
{
    return d->storageAlignment;
}

QStringList GpuBackend::debugMessages() const
{
    QStringList messages;
    d->thread->run([&] { messages = d->debugLog; });
    return messages;
}

void GpuBackend::loseContextForTesting()
{
    d->thread->run([this] {
        if (d->context && d->context->makeCurrent(d->surface.get())) {
            d->releaseRing();
            d->programs.clear();
            d->context->doneCurrent();
        }
        d->ring.clear();
        d->programs.clear();
        d->context.reset();
        d->idleSource = 0;
        d->idleSourceBytes = 0;
        std::fill(std::begin(d->inputSizes), std::end(d->inputSizes), 0);
        d->tableSpec.reset();
    });
}

} // namespace pe
