#include "gpubackend.h"

#include "samplingplan.h"
#include "schemes/sinusoidalscheme.h"

#include <QFile>
#include <QGuiApplication>
#include <QOffscreenSurface>
#include <QOpenGLContext>
#include <QOpenGLFunctions_4_3_Core>
#include <QOpenGLShaderProgram>
#include <QOpenGLVersionFunctionsFactory>

#include <condition_variable>
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

// Buffer slots; the binding points are the shaders'.
enum Slot {
    EncodeTable,
    EncodeValues,
    Sample0,
    Sample1,
    Sample2,
    Sample3,
    Sample4,
    Pixels,
    SlotCount
};

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
    std::map<QString, std::unique_ptr<QOpenGLShaderProgram>> programs;
    GLuint buffers[SlotCount] = {};
    GLsizeiptr bufferSizes[SlotCount] = {};
    std::vector<GLuint> queries;
    GLint maxGroups[3] = {65535, 65535, 65535};
    GLint64 maxStorageBlock = GLint64(1) << 27;
    bool timerQueries = false;
    QString renderer;
    QString version;
    std::optional<EncodingSpec> tableSpec; // whose phase table EncodeTable holds
    double lastKernelMs = -1.0;

    bool initialize(QString *why);
    void release();
    bool begin(QString *error);
    bool checkErrors(const QString &what, QString *error);
    // QOpenGLShaderProgram::setUniformValue(GLuint) calls glUniform1i, wrong for a uint.
    void setUint(QOpenGLShaderProgram *shader, const char *name, GLuint value)
    {
        gl->glUniform1ui(shader->uniformLocation(name), value);
    }
    QOpenGLShaderProgram *program(const QString &name, QString *error);
    bool upload(Slot slot, const void *data, qint64 bytes, const QString &what, QString *error);
    bool reserve(Slot slot, qint64 bytes, QString *error);
    qint64 bufferLimit() const;
    int groupLimit(int axis) const;
    void beginTimer(std::size_t index);
    void endTimer();
    void collectTimers(std::size_t used);

    bool encode(const EncodingSpec &spec, qint64 firstRow, qint64 rowCount, float *out,
                QString *error);
    bool sample(const EncodingSpec &spec, const MatrixWindow &window, int width, int height,
                float *out, QString *error);
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
    renderer = QString::fromLatin1(reinterpret_cast<const char *>(gl->glGetString(GL_RENDERER)));
    version = QString::fromLatin1(reinterpret_cast<const char *>(gl->glGetString(GL_VERSION)));
    for (GLuint axis = 0; axis < 3; ++axis)
        gl->glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, axis, &maxGroups[axis]);
    gl->glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &maxStorageBlock);
    GLint timerBits = 0;
    gl->glGetQueryiv(GL_TIME_ELAPSED, GL_QUERY_COUNTER_BITS, &timerBits);
    timerQueries = timerBits > 0;
    gl->glGenBuffers(SlotCount, buffers);
    if (!checkErrors(QStringLiteral("querying the compute limits"), why))
        return false;
    // Proves compute shaders work here; the other kernels compile on first use.
    return program(QStringLiteral("encode_phase"), why) != nullptr;
}

void GpuBackend::Private::release()
{
    if (gl && context && context->isValid() && context->makeCurrent(surface.get())) {
        gl->glDeleteBuffers(SlotCount, buffers);
        if (!queries.empty())
            gl->glDeleteQueries(GLsizei(queries.size()), queries.data());
        programs.clear();
        context->doneCurrent();
    }
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
    return true;
}

bool GpuBackend::Private::checkErrors(const QString &what, QString *error)
{
    QStringList names;
    for (GLenum e = gl->glGetError(); e != GL_NO_ERROR && names.size() < 8; e = gl->glGetError())
        names += glErrorName(e);
    if (names.isEmpty())
        return true;
    *error = QStringLiteral("OpenGL error %1 while %2").arg(names.join(QStringLiteral(", ")), what);
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
    qint64 limit = std::min<qint64>(maxStorageBlock, qint64(64) << 20);
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

bool GpuBackend::Private::reserve(Slot slot, qint64 bytes, QString *error)
{
    bytes = std::max<qint64>(bytes, 16);
    if (bytes > maxStorageBlock) {
        *error = QStringLiteral("a %1 buffer exceeds the driver's storage block limit of %2")
                     .arg(formatBytes(double(bytes)), formatBytes(double(maxStorageBlock)));
        return false;
    }
    if (bufferSizes[slot] >= bytes)
        return true;
    gl->glBindBuffer(GL_SHADER_STORAGE_BUFFER, buffers[slot]);
    gl->glBufferData(GL_SHADER_STORAGE_BUFFER, GLsizeiptr(bytes), nullptr, GL_DYNAMIC_COPY);
    if (!checkErrors(QStringLiteral("allocating %1 of GPU memory").arg(formatBytes(double(bytes))),
                     error)) {
        bufferSizes[slot] = 0;
        return false;
    }
    bufferSizes[slot] = GLsizeiptr(bytes);
    return true;
}

bool GpuBackend::Private::upload(Slot slot, const void *data, qint64 bytes, const QString &what,
                                 QString *error)
{
    if (!reserve(slot, bytes, error))
        return false;
    gl->glBindBuffer(GL_SHADER_STORAGE_BUFFER, buffers[slot]);
    if (bytes > 0)
        gl->glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, GLsizeiptr(bytes), data);
    return checkErrors(QStringLiteral("uploading ") + what, error);
}

void GpuBackend::Private::beginTimer(std::size_t index)
{
    if (!timerQueries)
        return;
    if (queries.size() <= index) {
        const std::size_t old = queries.size();
        queries.resize(index + 1);
        gl->glGenQueries(GLsizei(queries.size() - old), queries.data() + old);
    }
    gl->glBeginQuery(GL_TIME_ELAPSED, queries[index]);
}

void GpuBackend::Private::endTimer()
{
    if (timerQueries)
        gl->glEndQuery(GL_TIME_ELAPSED);
}

void GpuBackend::Private::collectTimers(std::size_t used)
{
    if (!timerQueries) {
        lastKernelMs = -1.0;
        return;
    }
    double ns = 0.0;
    for (std::size_t i = 0; i < used; ++i) {
        GLuint64 elapsed = 0;
        gl->glGetQueryObjectui64v(queries[i], GL_QUERY_RESULT, &elapsed);
        ns += double(elapsed);
    }
    lastKernelMs = ns * 1e-6;
}

bool GpuBackend::Private::encode(const EncodingSpec &spec, qint64 firstRow, qint64 rowCount,
                                 float *out, QString *error)
{
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
    lastKernelMs = 0.0;
    if (rowCount == 0)
        return true;
    if (!begin(error))
        return false;
    const MatrixPlan matrixPlan = spec.plan();
    const auto *phaseColumns = std::get_if<PhaseColumnsPlan>(&matrixPlan);
    const bool phases = phaseColumns != nullptr;
    QOpenGLShaderProgram *shader =
        program(phases ? QStringLiteral("encode_phase") : QStringLiteral("encode_learned"), error);
    if (!shader)
        return false;
    if (phases && tableSpec != spec) {
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
    // Chunks: a buffer of whole rows within the storage block limit, read back after each;
    // within it, dispatches of at most the work-group count limit.
    const qint64 rowsPerBuffer = std::max<qint64>(1, bufferLimit() / rowBytes);
    const qint64 rowsPerDispatch = qint64(groupLimit(1)) * rowsPerGroup;
    const qint64 bufferRows = std::min(rowsPerBuffer, rowCount);
    if (!reserve(EncodeValues, bufferRows * rowBytes, error))
        return false;
    shader->bind();
    gl->glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, buffers[EncodeTable]);
    gl->glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, buffers[EncodeValues]);
    setUint(shader, "dims", GLuint(dims));
    if (const auto *hashed = std::get_if<HashedUniformPlan>(&matrixPlan))
        setUint(shader, "seedKey", GLuint(seedKey(hashed->seed)));
    std::size_t timers = 0;
    for (qint64 done = 0; done < rowCount; done += rowsPerBuffer) {
        const qint64 rows = std::min(rowsPerBuffer, rowCount - done);
        beginTimer(timers++);
        for (qint64 sub = 0; sub < rows; sub += rowsPerDispatch) {
            const qint64 subRows = std::min(rowsPerDispatch, rows - sub);
            setUint(shader, "firstRow", GLuint(firstRow + done + sub));
            setUint(shader, "rowCount", GLuint(subRows));
            setUint(shader, "outRow", GLuint(sub));
            gl->glDispatchCompute(GLuint(groupsX),
                                  GLuint((subRows + rowsPerGroup - 1) / rowsPerGroup), 1);
        }
        endTimer();
        gl->glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
        gl->glBindBuffer(GL_SHADER_STORAGE_BUFFER, buffers[EncodeValues]);
        gl->glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, GLsizeiptr(rows * rowBytes),
                               out + done * dims);
        if (!checkErrors(QStringLiteral("computing rows %1 to %2")
                             .arg(firstRow + done)
                             .arg(firstRow + done + rows),
                         error))
            return false;
    }
    collectTimers(timers);
    return checkErrors(QStringLiteral("reading the timers"), error);
}

bool GpuBackend::Private::sample(const EncodingSpec &spec, const MatrixWindow &window, int width,
                                 int height, float *out, QString *error)
{
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
    if (!shader)
        return false;

    const std::vector<GpuSpan> columns = gpuSpans(plan->columns, plan->firstColumn, nullptr);
    if (!upload(Sample4, columns.data(), bytesOf(columns), QStringLiteral("the column spans"),
                error))
        return false;
    if (plan->closedForm) {
        std::vector<quint32> phases, runs;
        std::vector<float> dirichlet;
        for (const kernels::ColumnPhase &c : plan->phases)
            appendPhase(phases, c.step, c.offset);
        for (const PhaseRun &run : plan->runs) {
            for (std::size_t j = 0; j < run.centre.size(); ++j)
                appendPhase(runs, run.centre[j], run.span[j]);
            dirichlet.insert(dirichlet.end(), run.dirichlet.begin(), run.dirichlet.end());
        }
        const std::vector<GpuSpan> rows = gpuSpans(plan->rows, 0, &plan->rowRun);
        if (!upload(Sample0, phases.data(), bytesOf(phases), QStringLiteral("phases"), error) ||
            !upload(Sample1, runs.data(), bytesOf(runs), QStringLiteral("the closed-form tables"),
                    error) ||
            !upload(Sample2, dirichlet.data(), bytesOf(dirichlet),
                    QStringLiteral("the Dirichlet kernels"), error) ||
            !upload(Sample3, rows.data(), bytesOf(rows), QStringLiteral("the row spans"), error))
            return false;
    } else {
        std::vector<quint32> rows(plan->sampleRows.begin(), plan->sampleRows.end());
        std::vector<quint32> begins(plan->sampleBegin.begin(), plan->sampleBegin.end());
        if (!upload(Sample0, rows.data(), bytesOf(rows), QStringLiteral("sampled rows"), error) ||
            !upload(Sample1, plan->sampleWeights.data(), bytesOf(plan->sampleWeights),
                    QStringLiteral("row weights"), error) ||
            !upload(Sample2, begins.data(), bytesOf(begins), QStringLiteral("row offsets"), error))
            return false;
    }

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
    if (!reserve(Pixels, std::min<qint64>(bandRows, height) * rowBytes, error))
        return false;
    shader->bind();
    for (GLuint b = 0; b < 5; ++b)
        gl->glBindBufferBase(GL_SHADER_STORAGE_BUFFER, b, buffers[Sample0 + b]);
    gl->glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 5, buffers[Pixels]);
    setUint(shader, "width", GLuint(width));
    setUint(shader, "height", GLuint(height));
    if (plan->closedForm) {
        setUint(shader, "columnCount", GLuint(plan->columnCount));
    } else {
        setUint(shader, "firstColumn", GLuint(plan->firstColumn));
        setUint(shader, "seedKey", GLuint(seedKey(std::get<HashedUniformPlan>(plan->matrix).seed)));
    }
    std::size_t timers = 0;
    for (qint64 y0 = 0; y0 < height; y0 += bandRows) {
        const qint64 rows = std::min<qint64>(bandRows, height - y0);
        beginTimer(timers++);
        setUint(shader, "firstY", GLuint(y0));
        gl->glDispatchCompute(GLuint(groupsX), GLuint((rows + local - 1) / local), 1);
        endTimer();
        gl->glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
        gl->glBindBuffer(GL_SHADER_STORAGE_BUFFER, buffers[Pixels]);
        gl->glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, GLsizeiptr(rows * rowBytes),
                               out + y0 * width);
        if (!checkErrors(QStringLiteral("sampling pixel rows %1 to %2").arg(y0).arg(y0 + rows),
                         error))
            return false;
    }
    collectTimers(timers);
    return checkErrors(QStringLiteral("reading the timers"), error);
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

double GpuBackend::lastKernelMilliseconds() const
{
    return d->lastKernelMs;
}

void GpuBackend::loseContextForTesting()
{
    d->thread->run([this] {
        if (d->context && d->context->makeCurrent(d->surface.get())) {
            d->programs.clear();
            d->context->doneCurrent();
        }
        d->programs.clear();
        d->context.reset();
        std::fill(std::begin(d->bufferSizes), std::end(d->bufferSizes), 0);
        d->tableSpec.reset();
    });
}

} // namespace pe
