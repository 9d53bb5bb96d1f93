// ExportDialog: File → Export figure. Chooses the view, format, size (pixels, inches or cm at a
// DPI), print theme, title and caption, shows a live preview rendered by the same FigureExporter
// that writes the file, and copies the figure to the clipboard.
#pragma once

#include "figures/figureexporter.h"

#include <QDialog>
#include <QImage>
#include <QTimer>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace pe {

class ComputeScheduler;

class ExportDialog : public QDialog
{
    Q_OBJECT
public:
    enum class Unit { Pixels, Inches, Centimetres };

    ExportDialog(const ExplorerState *state, ComputeScheduler *scheduler,
                 QWidget *parent = nullptr);

    FigureOptions options() const;
    void setOptions(const FigureOptions &options);
    void setViews(const QList<FigureView> &views);
    QString path() const;
    void setPath(const QString &path);
    Unit unit() const;
    void setUnit(Unit unit);

    // The scheduler's results for the chosen views when they match the state's parameters, else
    // empty members.
    FigureData currentData() const;
    // Renders with options() and writes path(); false with *error, also shown in the dialog.
    bool exportFigure(QString *error);
    bool copyToClipboard(QString *error);
    // The last preview, at most 480 x 360 pixels; null while there is nothing to show (the
    // figure's numbers are still being computed by the scheduler).
    QImage previewImage() const { return m_preview; }
    QString message() const;

public slots:
    // Draws the preview from the scheduler's results, or asks the scheduler for them (the preview
    // follows when they arrive).
    void refreshPreview();

signals:
    void exported(const QString &path);

protected:
    void hideEvent(QHideEvent *event) override;

private:
    void onFormatChanged();
    void onUnitChanged();
    void syncSizeInfo();
    void syncViewAvailability();
    void schedulePreview();
    void browse();
    void setMessage(const QString &text, bool error);
    double pixelsToUnit(int pixels) const;
    int unitToPixels(double value) const;

    const ExplorerState *m_state;
    ComputeScheduler *m_scheduler;
    QComboBox *m_view;
    QComboBox *m_format;
    QComboBox *m_unit;
    QDoubleSpinBox *m_width;
    QDoubleSpinBox *m_height;
    QSpinBox *m_dpi;
    QLabel *m_sizeInfo;
    QCheckBox *m_printTheme;
    QCheckBox *m_interpolate;
    QCheckBox *m_showSelection;
    QDoubleSpinBox *m_fontScale;
    QComboBox *m_legend;
    QComboBox *m_colorbar;
    QLineEdit *m_xLabel;
    QLineEdit *m_yLabel;
    QLineEdit *m_title;
    QCheckBox *m_caption;
    QLineEdit *m_captionText;
    QLineEdit *m_path;
    QLabel *m_previewLabel;
    QLabel *m_message;
    QPushButton *m_exportButton;
    QPushButton *m_copyButton;
    QTimer m_previewTimer;
    QImage m_preview;
    Unit m_currentUnit = Unit::Pixels;
    int m_pixelWidth = 1200;
    int m_pixelHeight = 800;
};

} // namespace pe
