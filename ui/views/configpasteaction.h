// ConfigPasteAction: File > Paste config.json… — a model's config.json as text, shown as the
// window's encoding (its first rotary layer) and on the Model page (card, layer map).
#pragma once

#include <QByteArrayView>
#include <QObject>
#include <QPointer>
#include <QString>

class QAction;
class QWidget;

namespace pe {

class ConfigPasteDialog;
class ExplorerState;
class ModelPage;

class ConfigPasteAction : public QObject
{
    Q_OBJECT
public:
    // `parent`: the window, the dialog's parent and this object's owner.
    ConfigPasteAction(ExplorerState *state, ModelPage *modelPage, QWidget *parent);

    QAction *action() const { return m_action; }

signals:
    void message(const QString &text);

private:
    ExplorerState *m_state;
    ModelPage *m_modelPage;
    QWidget *m_parent;
    QAction *m_action;
    QPointer<ConfigPasteDialog> m_dialog;
};

// Parses `text` as a config.json and shows it: the state's encoding (one undo step) and the
// Model page's card and layer. False with *error naming what is wrong; the state is then
// unchanged.
bool applyModelConfigText(ExplorerState *state, ModelPage *modelPage, QByteArrayView text,
                          QString *error);

} // namespace pe
