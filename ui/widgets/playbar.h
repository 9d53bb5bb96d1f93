// PlayBar: the window's motion control (issue 13): a slider over the position (waves, heatmap,
// rotation, phrase views) or over one numeric field of the scheme (any view, e.g. the spectrum's
// RoPE factor), with play / pause, speed and loop. Playing is looking, not editing: on the
// Encoding and Phrases pages a step moves the selected cell or the clicked token (where the user
// looks, as a click would; the markers stay as typed), and a step of a parameter (the rotation's
// position, a swept field) is an ExplorerState::Preview, shown but never saved nor an undo step.
// The views and the ComputeScheduler (off the UI thread, newest wins) follow. The slider's knob
// and the value beside it always say the same value: the state's, when it is not playing.
#pragma once

#include "figures/figureanimation.h"

#include <QToolBar>

#include <functional>
#include <optional>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSlider;
class QTimer;
class QToolButton;

namespace pe {

class ExplorerState;

class PlayBar : public QToolBar
{
    Q_OBJECT

public:
    using ViewsFn = std::function<QList<FigureView>()>;
    // `playable`: the current page's views the control moves; `figure`: what Export… writes
    // (the page's figure: Fig 16-9's waves over heatmap, the phrases, the Schemes view), with
    // the bar's parameter and range. The window's page answers both (views/viewpage.h).
    PlayBar(ExplorerState *state, ViewsFn playable, ViewsFn figure, QWidget *parent = nullptr);

    bool isPlaying() const;
    QList<FigureView> currentViews() const { return m_playable(); }
    AnimationOptions currentAnimation() const;
    // Puts the bar on `options`' parameter and range (a lesson step's animation), paused; false
    // with *error when the current views do not offer the parameter or refuse the range.
    bool setAnimation(const AnimationOptions &options, QString *error);

public slots:
    void play();
    void pause(); // stops at once; the state keeps the value shown
    void setStep(int step);
    // Pauses and asks for File > Export figure preset to what the bar plays (exportRequested).
    void exportAnimation();

    // The value the slider and its label show ("position = 50").
    QString valueText() const;

signals:
    void playingChanged(bool playing);
    void exportRequested(const QList<pe::FigureView> &views, const pe::AnimationOptions &animation);

protected:
    void changeEvent(QEvent *event) override;

private:
    void rebuild(); // the parameter list, range and plan for the current page and scheme
    void replan();
    void advance();
    // Puts the knob (and its label) on the state's own value of what the bar moves.
    void followState();
    std::optional<double> stateValue() const;
    void showStep(int step);
    // Play and pause drawn in the palette's text colour: visible in both themes.
    void updatePlayIcon();
    // The value label as wide as the range's values need, the range boxes as narrow as their
    // values allow, in the bar's font (the window's zoom changes it).
    void fitWidths();

    ExplorerState *m_state;
    ViewsFn m_playable;
    ViewsFn m_figure;
    QComboBox *m_parameter;
    QDoubleSpinBox *m_from;
    QDoubleSpinBox *m_to;
    QSlider *m_slider;
    QToolButton *m_play;
    QToolButton *m_export;
    QComboBox *m_speed;
    QCheckBox *m_loop;
    QLabel *m_value;
    QTimer *m_timer;
    std::optional<FigureAnimation> m_plan;
    QString m_chosen;   // the parameter the user picked
    double m_phase = 0; // fractional steps between timer ticks at slow speeds
    bool m_applying = false;
};

} // namespace pe
