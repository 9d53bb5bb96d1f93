// DeckFolder: a folder of files written together (an HTML deck, issue 45) that never touches a
// file it did not write. The folder's manifest (pescope-deck.txt) lists the files the deck wrote;
// a new deck replaces those and nothing else, so a user's notes or the lesson file saved beside
// them stay. A folder without a manifest must be new or empty; one holding anything else is
// refused naming the first such file. A symbolic link to a folder is written through (the link
// stays a link); the files inside are replaced with rename(2), which replaces a link there and
// never follows it, and a file the manifest names is removed only if it is a plain file or a
// link. Files are written into a hidden staging folder (StagingFolder: removed on failure and on
// SIGTERM / SIGINT / SIGHUP), then moved into place at the end; until then the earlier deck is
// untouched. Errors name the deck's files as the user named the deck, never the staging folder,
// and keep the cause ("No space left on device").
#pragma once

#include "io/atomicfile.h"

#include <QByteArray>
#include <QRegularExpression>
#include <QString>
#include <QStringList>

#include <memory>

namespace pe {

class DeckFolder
{
public:
    // `path` as the user typed it ("deck", "deck/"); `header` the manifest's first lines (what
    // wrote it, what to open); `ownNames` the names a deck of this kind writes (a manifest entry
    // outside them is not trusted).
    DeckFolder(const QString &path, const QString &header, const QRegularExpression &ownNames);
    ~DeckFolder();
    DeckFolder(const DeckFolder &) = delete;
    DeckFolder &operator=(const DeckFolder &) = delete;

    static QString manifestName() { return QStringLiteral("pescope-deck.txt"); }

    // Empty when a deck can go to the path: a new folder in an existing writable folder, an empty
    // folder, or a folder holding an earlier deck (and maybe other files the user put there);
    // else one sentence naming the path (and the first foreign file). With `names` (the files
    // the deck will write), also when one of them is there but no earlier deck wrote it.
    // Checked before any work.
    QString problem(const QStringList &names = {}) const;
    // Checks again and makes the staging folder; false with *error.
    [[nodiscard]] bool begin(QString *error);
    // Writes one of the deck's files (a name matching ownNames) into the staging folder.
    [[nodiscard]] bool write(const QString &name, const QByteArray &bytes, QString *error);
    // Where a writer that takes a path (a video encoder) writes `name`; tell the deck afterwards
    // with wrote(name).
    QString stagedPath(const QString &name) const;
    void wrote(const QString &name) { m_names.append(name); }
    // The deck into place; false with *error (a deck written before stays listed in the
    // manifest, so the next export can replace it).
    [[nodiscard]] bool commit(QString *error);

    // The deck's path as shown in messages (the user's, without a trailing slash).
    QString shownPath() const { return m_shown; }
    // `message` with the staging folder's path replaced by the deck's.
    QString shown(const QString &message) const;

private:
    // What is at the path now: nothing, a folder (its real path), or something else.
    struct Target
    {
        bool exists = false;
        QString folder;    // the folder written into (a link's target, resolved)
        QStringList owned; // files an earlier deck wrote there (its manifest)
        QString problem;   // why no deck can go there
    };
    Target inspect() const;
    QString shownFile(const QString &name) const;
    bool failErrno(const QString &what, int err, QString *error) const;
    bool commitNew(QString *error);
    bool commitInto(const Target &target, QString *error);
    QByteArray manifest(const QStringList &names) const;

    QString m_path;  // cleaned absolute path
    QString m_shown; // as the user typed it, cleaned
    QString m_header;
    QRegularExpression m_ownNames;
    std::unique_ptr<StagingFolder> m_staging;
    QStringList m_names; // written into the staging folder, in order
};

// The names listed by a manifest's text (the lines after its first empty line) that match
// `ownNames`; a manifest of pescope before the list (no empty line) owns every name matching
// `ownNames` in the folder: `present`.
QStringList deckManifestNames(const QByteArray &text, const QRegularExpression &ownNames,
                              const QStringList &present);

} // namespace pe
