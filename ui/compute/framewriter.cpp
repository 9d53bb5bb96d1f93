#include "compute/framewriter.h"

namespace pe {

FrameWriter::FrameWriter(QObject *parent)
    : QObject(parent), m_encoder(std::make_unique<VideoEncoder>())
{
    m_worker = new QObject;
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    m_thread.setObjectName(QStringLiteral("pescope frame writer"));
    m_thread.start();
}

FrameWriter::~FrameWriter()
{
    // The frame being encoded finishes; whatever waits behind it is skipped.
    m_stop->store(true);
    m_thread.quit();
    m_thread.wait();
    // The thread has stopped: the encoder is ours now, and an unfinished file is discarded.
    m_encoder.reset();
}

template <class Work> void FrameWriter::post(Work &&work)
{
    QMetaObject::invokeMethod(m_worker, [this, stop = m_stop, work = std::forward<Work>(work)] {
        if (!stop->load())
            work();
    });
}

void FrameWriter::report(VideoEncoder::Status status, const QString &error)
{
    // The destructor waits for the thread, so `this` outlives every job that reports.
    QMetaObject::invokeMethod(
        this,
        [this, status, error] {
            if (m_finished)
                return;
            m_finished = true;
            emit finished(status, error);
        },
        Qt::QueuedConnection);
}

void FrameWriter::open(const QString &path, const VideoSettings &settings,
                       const QList<QImage> &palette)
{
    post([this, path, settings, palette] {
        QString error;
        if (!m_encoder->open(path, settings, palette, &error)) {
            m_stop->store(true);
            report(VideoEncoder::Status::Failed, error);
        }
    });
}

void FrameWriter::addFrame(const QImage &frame)
{
    ++m_handed;
    post([this, frame] {
        QString error;
        if (!m_encoder->addFrame(frame, &error)) {
            m_stop->store(true);
            m_encoder->cancel();
            report(VideoEncoder::Status::Failed, error);
            return;
        }
        const int written = m_encoder->framesWritten();
        QMetaObject::invokeMethod(
            this,
            [this, written] {
                m_written = written;
                emit frameWritten(written);
            },
            Qt::QueuedConnection);
    });
}

void FrameWriter::finish()
{
    post([this] {
        QString error;
        const bool ok = m_encoder->finish(&error);
        report(ok ? VideoEncoder::Status::Done : VideoEncoder::Status::Failed, error);
    });
}

void FrameWriter::cancel()
{
    if (m_finished)
        return;
    m_stop->store(true);
    // Behind the frame being encoded, if any; the skipped ones never touch the file.
    QMetaObject::invokeMethod(m_worker, [this] {
        m_encoder->cancel();
        report(VideoEncoder::Status::Cancelled, QString());
    });
}

} // namespace pe
