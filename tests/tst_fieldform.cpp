// FieldForm's layout: rows shown and hidden by view (the Schemes page), messages beside their
// fields, labels level with their editors, and the heap intact through all of it.
//
// CTest runs this suite under glibc's malloc checking (libc_malloc_debug with
// glibc.malloc.check=3, see tests/CMakeLists.txt), which aborts on a write past a block's end.
// That is how it catches the bug it was written for: Qt 6.4's QFormLayout, which FieldForm used,
// wrote past its row array in heightForWidth once rows were hidden with setRowVisible and
// another row held word-wrapped text. tst_commit crashed in CI on the corrupted heap, one run in
// fifteen; under malloc checking this suite aborted every time on that code.
#include "state/schemesettings.h"
#include "testutil.h"
#include "widgets/fieldform.h"

#include <QApplication>
#include <QLabel>
#include <QLayout>
#include <QLineEdit>
#include <QTest>
#include <QVBoxLayout>

#include <cmath>

using namespace pe;

namespace {

// A form over a SchemeSettings of its own (no window): commits go into `value`.
struct SettingsForm
{
    SchemeSettings value;
    QWidget window;
    FieldForm *form = nullptr;

    // `keys`: the form's rows (empty: every field).
    explicit SettingsForm(const QStringList &keys = {})
    {
        form = new FieldForm(std::make_unique<TableFormModel<SchemeSettings>>(
                                 SchemeSettings::fields(), [this] { return value; },
                                 TableFormModel<SchemeSettings>::Rules(),
                                 [this](const SchemeSettings &s, QString *) {
                                     value = s;
                                     return true;
                                 },
                                 keys),
                             &window);
        auto *layout = new QVBoxLayout(&window);
        layout->addWidget(form);
        layout->addStretch(1);
        window.resize(320, 900);
        window.show();
    }

    // Lays the window out at `width` now, as a resize by the user would.
    void layOutAt(int width)
    {
        window.resize(width, 900);
        window.layout()->activate();
        QApplication::processEvents();
    }
};

QList<FormField> integerFields()
{
    QList<FormField> fields = formFields(SchemeSettings::fields());
    fields.removeIf([](const FormField &f) { return f.editor != FormField::Editor::Integer; });
    return fields;
}

} // namespace

class TestFieldForm : public QObject
{
    Q_OBJECT

private slots:
    void rowsFollowTheShownKeys()
    {
        SettingsForm f;
        for (SchemeView view : allSchemeViews()) {
            const QStringList keys = SchemeSettings::keysReadBy(view);
            if (keys.isEmpty())
                continue;
            f.form->setShownKeys(keys);
            f.layOutAt(320);
            for (const FormField &field : formFields(SchemeSettings::fields())) {
                QWidget *editor = f.form->editor(field.key);
                QVERIFY2(editor, qPrintable(field.key));
                QCOMPARE(editor->isVisibleTo(&f.window), keys.contains(field.key));
            }
        }
    }

    // A form showing one of its rows is exactly as tall as a form that has only that row.
    void hiddenRowsTakeNoSpace()
    {
        const QList<FormField> fields = integerFields();
        QVERIFY(fields.size() >= 2);
        for (const FormField &field : {fields.first(), fields.last()}) {
            SettingsForm all;
            all.form->setShownKeys({field.key});
            all.layOutAt(320);
            SettingsForm only({field.key});
            only.layOutAt(320);
            QCOMPARE(all.form->sizeHint().height(), only.form->sizeHint().height());
        }
    }

    // Every message beside its field, with rows hidden around it and after it, at several
    // widths (the word-wrapped message is what asks the layout for heightForWidth), and the
    // label level with its editor however tall the message makes the row.
    void messagesBesideHiddenAndShownRows()
    {
        SettingsForm f;
        const QList<FormField> fields = integerFields();
        QVERIFY(!fields.isEmpty());
        for (const FormField &field : fields) {
            f.form->setShownKeys({field.key});
            f.layOutAt(320);
            auto *line = qobject_cast<QLineEdit *>(f.form->editor(field.key));
            QVERIFY2(line, qPrintable(field.key));
            line->setFocus();
            line->selectAll();
            const QString tooLarge = QString::number(field.maximum) + QStringLiteral("9");
            QTest::keyClicks(line, tooLarge);
            QTest::keyClick(line, Qt::Key_Return);
            const QString message = f.form->message(field.key);
            QVERIFY2(!message.isEmpty(), qPrintable(field.key + QStringLiteral(" = ") + tooLarge));
            for (int width : {180, 320, 640, 240}) {
                f.layOutAt(width);
                auto *shown =
                    f.window.findChild<QLabel *>(line->objectName() + QStringLiteral("Message"));
                QVERIFY(shown && shown->isVisibleTo(&f.window));
                // Below its editor, within the form.
                const QRect editorRect(line->mapTo(&f.window, QPoint()), line->size());
                const QRect messageRect(shown->mapTo(&f.window, QPoint()), shown->size());
                QVERIFY(messageRect.top() >= editorRect.bottom());
                QVERIFY(f.form->geometry().contains(messageRect));
                int labels = 0;
                for (auto *candidate : f.form->findChildren<QLabel *>()) {
                    if (candidate->buddy() != line || !candidate->isVisibleTo(&f.window))
                        continue;
                    ++labels;
                    const QRect labelRect(candidate->mapTo(&f.window, QPoint()), candidate->size());
                    QVERIFY2(std::abs(labelRect.center().y() - editorRect.center().y()) <= 2,
                             qPrintable(QStringLiteral("%1: label at y %2, editor at y %3")
                                            .arg(field.key)
                                            .arg(labelRect.center().y())
                                            .arg(editorRect.center().y())));
                }
                QCOMPARE(labels, 1);
            }
            // The row with the message hidden, another shown, and back.
            f.form->setShownKeys({fields.constLast().key, fields.constFirst().key});
            f.layOutAt(200);
            f.form->setShownKeys({});
            f.layOutAt(500);
            f.form->refresh();
        }
    }
};

QTEST_MAIN(TestFieldForm)
#include "tst_fieldform.moc"
