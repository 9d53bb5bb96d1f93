// FieldForm's layout: rows shown and hidden by view (the Schemes page), messages beside their
// fields, labels level with their editors, and the heap intact through all of it.
//
// CTest runs this suite under glibc's malloc checking (libc_malloc_debug with
// glibc.malloc.check=3, see tests/CMakeLists.txt), which aborts on a write past a block's end.
// That is how it catches the bug it was written for: Qt 6.4's QFormLayout, which FieldForm used,
// wrote past its row array in heightForWidth once rows were hidden with setRowVisible and
// another row held word-wrapped text. tst_commit crashed in CI on the corrupted heap, one run in
// fifteen; under malloc checking this suite aborted every time on that code.
#include "figures/figureoptions.h"
#include "state/schemesettings.h"
#include "testutil.h"
#include "widgets/fieldform.h"
#include "widgets/messageslot.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QLabel>
#include <QLayout>
#include <QLineEdit>
#include <QTest>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <functional>

using namespace pe;

namespace {

// A form over a SchemeSettings of its own (no window): commits go into `value`.
struct SettingsForm
{
    SchemeSettings value;
    QWidget window;
    FieldForm *form = nullptr;
    // Runs inside each commit, as an owner's reaction to the change would (may be empty).
    std::function<void()> onWrite;

    // `keys`: the form's rows (empty: every field).
    explicit SettingsForm(const QStringList &keys = {})
    {
        form = new FieldForm(std::make_unique<TableFormModel<SchemeSettings>>(
                                 SchemeSettings::fields(), [this] { return value; },
                                 TableFormModel<SchemeSettings>::Rules(),
                                 [this](const SchemeSettings &s, QString *) {
                                     value = s;
                                     if (onWrite)
                                         onWrite();
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
        for (FigureView view : viewsOf(Page::Schemes)) {
            const QStringList keys = schemeKeysReadBy(view);
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

    // CI crashed in tst_commit (one run in three here): a choice's commit led the window to
    // rebuild the form's rows while FieldForm::commit still read the key it had been handed by
    // reference, the deleted row's own. Here the owner rebuilds the rows inside every commit.
    // The release build rarely notices (the new rows reuse the freed blocks); the sanitizer
    // stage's ASan, or valgrind, reported the old code's read of the freed row every time.
    void aCommitMayRebuildTheRows()
    {
        SettingsForm f;
        int rebuilds = 0;
        f.onWrite = [&] { f.form->setNamePrefix(QStringLiteral("rebuilt%1").arg(++rebuilds)); };
        for (int i = 0; i < 3; ++i) {
            auto *combo = qobject_cast<QComboBox *>(f.form->editor(QStringLiteral("view")));
            QVERIFY(combo);
            const int index = (combo->currentIndex() + 1) % combo->count();
            combo->setCurrentIndex(index);
            emit combo->activated(index);
            QCOMPARE(rebuilds, i + 1);
            QCOMPARE(figureViewName(f.value.view), combo->itemData(index).toString());
            QVERIFY(f.form->message().isEmpty());
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

    // setColumns(2): the rows shown go in reading order over two label-editor pairs, the hidden
    // ones leave no gap, and the form is about half as tall (the layer ablation's rule form,
    // issue 48: six rows beside the layer choices made the window taller than 720 px).
    void columnsLayShownRowsInReadingOrder()
    {
        // Every other field shown: hidden rows between the shown ones.
        QStringList everyOther;
        const QList<FormField> fields = formFields(SchemeSettings::fields());
        for (qsizetype i = 0; i < fields.size(); i += 2)
            everyOther.append(fields.at(i).key);
        SettingsForm one, two;
        two.form->setColumns(2);
        for (SettingsForm *f : {&one, &two}) {
            f->form->setShownKeys(everyOther);
            f->layOutAt(900);
        }
        QStringList keys; // the rows shown, in the table's order
        for (const FormField &field : fields)
            if (one.form->editor(field.key)->isVisibleTo(&one.window))
                keys.append(field.key);
        QVERIFY(keys.size() >= 4);
        QVERIFY(keys.size() < fields.size());
        const auto at = [&](qsizetype i) {
            return two.form->editor(keys.at(i))->mapTo(&two.window, QPoint(0, 0));
        };
        for (qsizetype i = 0; i < keys.size(); ++i) {
            QVERIFY(two.form->editor(keys.at(i))->isVisibleTo(&two.window));
            if (i % 2 == 1) { // beside the one before, level with it
                QVERIFY2(std::abs(at(i).y() - at(i - 1).y()) < 8, qPrintable(keys.at(i)));
                QVERIFY(at(i).x() > at(i - 1).x() + two.form->editor(keys.at(i - 1))->width() / 2);
            } else if (i >= 2) { // back in the left column, below the row before
                QVERIFY2(at(i).x() < at(i - 1).x(), qPrintable(keys.at(i)));
                QVERIFY(at(i).y() > at(i - 2).y());
            }
        }
        // The rows' part of the form (less its message slot, the same in both) about halves.
        const auto rowsHeight = [](const SettingsForm &f) {
            const auto *slot = f.form->findChild<MessageSlot *>(QStringLiteral("formMessage"));
            return f.form->sizeHint().height() - (slot ? slot->sizeHint().height() : 0);
        };
        QVERIFY2(rowsHeight(two) < rowsHeight(one) * 2 / 3,
                 qPrintable(QStringLiteral("%1 against %2 px of %3 rows")
                                .arg(rowsHeight(two))
                                .arg(rowsHeight(one))
                                .arg(keys.size())));
    }

    // Issue 25: a message beside its field pushed the fields below it down under the mouse.
    // Now a refusal shows in the form's slot below every row, its room reserved: no editor and
    // no label moves when a message appears or goes, at several widths, with rows hidden around
    // it (the word-wrapped message is what asks the grid for heightForWidth), and the slot stays
    // within the form.
    void messagesMoveNoField()
    {
        SettingsForm f;
        const QList<FormField> fields = integerFields();
        QVERIFY(!fields.isEmpty());
        const auto placeOf = [&f](const QWidget *w) {
            return QRect(w->mapTo(&f.window, QPoint()), w->size());
        };
        // Every shown editor's and label's place, and the form's height.
        const auto places = [&] {
            QList<QRect> out;
            for (const FormField &field : fields) {
                QWidget *editor = f.form->editor(field.key);
                out.append(editor->isVisibleTo(&f.window) ? placeOf(editor) : QRect());
            }
            for (auto *label : f.form->findChildren<QLabel *>())
                if (label->buddy() && label->isVisibleTo(&f.window))
                    out.append(placeOf(label));
            out.append(QRect(0, 0, 0, f.form->height()));
            return out;
        };
        for (const FormField &field : fields) {
            QStringList shown;
            for (const FormField &other : fields)
                if (other.key != fields.constLast().key || other.key == field.key)
                    shown.append(other.key); // one row hidden, unless it is this one
            f.form->setShownKeys(shown);
            f.layOutAt(320);
            auto *line = qobject_cast<QLineEdit *>(f.form->editor(field.key));
            QVERIFY2(line, qPrintable(field.key));
            const QList<QRect> before = places();
            line->setFocus();
            line->selectAll();
            const QString tooLarge = QString::number(field.maximum) + QStringLiteral("9");
            QTest::keyClicks(line, tooLarge);
            QTest::keyClick(line, Qt::Key_Return);
            const QString message = f.form->message(field.key);
            QVERIFY2(!message.isEmpty(), qPrintable(field.key + QStringLiteral(" = ") + tooLarge));
            QVERIFY2(message.contains(field.label, Qt::CaseInsensitive), qPrintable(message));
            f.layOutAt(320);
            QCOMPARE(places(), before);
            for (int width : {240, 320, 640}) {
                f.layOutAt(width);
                auto *slot =
                    f.window.findChild<QLabel *>(line->objectName() + QStringLiteral("Message"));
                QVERIFY(slot && slot->isVisibleTo(&f.window));
                QCOMPARE(slot->text(), message);
                // Below every editor, within the form.
                const QRect slotRect = placeOf(slot);
                for (const FormField &other : fields)
                    if (QWidget *editor = f.form->editor(other.key); editor->isVisibleTo(&f.window))
                        QVERIFY(slotRect.top() >= placeOf(editor).bottom());
                QVERIFY(f.form->geometry().contains(slotRect));
            }
            // A good value clears the message; nothing moves back either.
            f.layOutAt(320);
            line->selectAll();
            QTest::keyClicks(line, QString::number(field.minimum));
            QTest::keyClick(line, Qt::Key_Return);
            QVERIFY2(f.form->messages().isEmpty(), qPrintable(f.form->messages().join(u'|')));
            QCOMPARE(places(), before);
            // The row with the message hidden, another shown, and back.
            QTest::keyClicks(line, QStringLiteral("9"));
            QTest::keyClick(line, Qt::Key_Return);
            f.form->setShownKeys({fields.constLast().key, fields.constFirst().key});
            f.layOutAt(200);
            f.form->setShownKeys({});
            f.layOutAt(500);
            f.form->refresh();
        }
    }

    // Issue 32: a text field takes text up to its table's limit; longer text is refused with
    // the field's message instead of being cut at QLineEdit's 32,767 characters.
    void textFieldsTakeTheirTablesLimit()
    {
        const QList<FormField> all = formFields(FigureOptions::fields());
        const auto text = std::find_if(all.begin(), all.end(), [](const FormField &field) {
            return field.key == QLatin1String("captionText");
        });
        QVERIFY(text != all.end());
        QCOMPARE(text->maxLength, qint64(2000)); // the table's limit, in figureoptions.cpp
        FigureOptions value;
        QWidget window;
        auto *form = new FieldForm(std::make_unique<TableFormModel<FigureOptions>>(
                                       FigureOptions::fields(), [&value] { return value; },
                                       TableFormModel<FigureOptions>::Rules(),
                                       [&value](const FigureOptions &o, QString *) {
                                           value = o;
                                           return true;
                                       },
                                       QStringList{QStringLiteral("captionText")}),
                                   &window);
        (new QVBoxLayout(&window))->addWidget(form);
        window.show();
        auto *line = qobject_cast<QLineEdit *>(form->editor(QStringLiteral("captionText")));
        QVERIFY(line);
        QGuiApplication::clipboard()->setText(QString(2000, QLatin1Char('x')));
        line->setFocus();
        QTest::keyClick(line, Qt::Key_V, Qt::ControlModifier);
        QTest::keyClick(line, Qt::Key_Return);
        QCOMPARE(value.captionText.size(), 2000);
        QVERIFY(form->messages().isEmpty());
        // 2,500 pasted: refused at once with the limit named; the field and the state keep
        // their 2,000.
        QGuiApplication::clipboard()->setText(QString(2500, QLatin1Char('y')));
        QTest::keyClick(line, Qt::Key_A, Qt::ControlModifier);
        QTest::keyClick(line, Qt::Key_V, Qt::ControlModifier);
        const QString refused = form->message(QStringLiteral("captionText"));
        QVERIFY2(refused.contains(u"at most 2000 characters"_qs) &&
                     refused.contains(u"make it 2500"_qs),
                 qPrintable(form->messages().join(u'|')));
        QCOMPARE(line->text(), QString(2000, QLatin1Char('x')));
        QTest::keyClick(line, Qt::Key_Return);
        QCOMPARE(value.captionText, QString(2000, QLatin1Char('x')));
        // One typed character more is refused on commit, not dropped.
        QTest::keyClick(line, Qt::Key_End);
        QTest::keyClick(line, Qt::Key_Z);
        QCOMPARE(line->text().size(), 2001);
        QTest::keyClick(line, Qt::Key_Return);
        QVERIFY2(
            form->message(QStringLiteral("captionText")).contains(u"at most 2000 characters"_qs),
            qPrintable(form->messages().join(u'|')));
        QCOMPARE(value.captionText, QString(2000, QLatin1Char('x')));
    }

    // The slots messages appear in keep their room: empty or not, a short message or a long
    // one, a fixed slot is as tall as its reserved lines (a longer message ends in "…", the whole
    // of it in the tooltip); a growing one grows past them only for a longer message.
    void messageSlotsKeepTheirRoom()
    {
        QWidget window;
        auto *fixed = new MessageSlot(2, MessageSlot::Height::Fixed, false, &window);
        auto *growing = new MessageSlot(2, MessageSlot::Height::Growing, true, &window);
        auto *below = new QLabel(QStringLiteral("below"), &window);
        auto *layout = new QVBoxLayout(&window);
        layout->addWidget(fixed);
        layout->addWidget(growing);
        layout->addWidget(below);
        layout->addStretch(1);
        window.resize(240, 400);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const int lineSpacing = fixed->fontMetrics().lineSpacing();
        QVERIFY(fixed->height() >= 2 * lineSpacing);
        const QRect before = below->geometry();
        const QString shortText = QStringLiteral("Computed in 3 ms");
        QString longText;
        for (int i = 0; i < 40; ++i)
            longText += QStringLiteral("word%1 ").arg(i);
        for (const QString &text : {shortText, longText, QString()}) {
            fixed->setMessage(text);
            QApplication::processEvents();
            QCOMPARE(fixed->height(), fixed->reservedHeight());
            QCOMPARE(fixed->message(), text);
        }
        fixed->setMessage(longText);
        QApplication::processEvents();
        QVERIFY2(fixed->text().endsWith(QChar(0x2026)), qPrintable(fixed->text()));
        QVERIFY(fixed->text().size() < longText.size());
        QCOMPARE(fixed->toolTip(), longText);
        growing->setMessage(shortText);
        window.layout()->activate();
        QApplication::processEvents();
        QCOMPARE(below->geometry(), before); // a message within the reserved lines moves nothing
        growing->setMessage(longText);
        window.layout()->activate();
        QApplication::processEvents();
        QVERIFY(growing->height() > growing->reservedHeight()); // shown whole
        QCOMPARE(growing->text(), longText);
    }
};

QTEST_MAIN(TestFieldForm)
#include "tst_fieldform.moc"
