// MappedFile: a user's file memory-mapped read-only, after checking that it is a regular file.
// The model-file readers (safetensors, GGUF, npy) parse headers from it and convert only the
// tensor bytes they are asked for, so opening a multi-GB file costs a header's worth of reads.
#pragma once

#include <QString>
#include <QtGlobal>

#include <memory>

class QFile;

namespace pe {

class MappedFile
{
public:
    MappedFile();
    ~MappedFile();
    MappedFile(MappedFile &&other) noexcept;
    MappedFile &operator=(MappedFile &&other) noexcept;
    MappedFile(const MappedFile &) = delete;
    MappedFile &operator=(const MappedFile &) = delete;

    // Maps `path` (symbolic links followed). Directories, FIFOs, character and block devices and
    // sockets are refused before the file is opened for reading (opening a FIFO would block), and
    // checked again on the opened descriptor. On failure `error` gets one sentence naming the
    // file. An empty file opens with size() 0 and data() null.
    [[nodiscard]] bool open(const QString &path, QString *error);
    void close();

    bool isOpen() const { return m_open; }
    // The path as given to open(), in native separators; readers put it in their messages.
    const QString &path() const { return m_path; }
    qint64 size() const { return m_size; }
    const uchar *data() const { return m_data; }
    // True when the byte range [offset, offset + length) lies inside the file (overflow-safe).
    bool contains(qint64 offset, qint64 length) const
    {
        return offset >= 0 && length >= 0 && offset <= m_size && length <= m_size - offset;
    }

private:
    QString m_path;
    const uchar *m_data = nullptr;
    qint64 m_size = 0;
    bool m_open = false;
    std::unique_ptr<QFile> m_file; // the QFile::map() fallback on platforms without mmap
};

} // namespace pe
