# The model layer's layering (issue 30): ui/state and ui/compute (pe_model) include nothing from
# ui's views, dialogs, widgets or figures, and neither Qt Widgets nor QCustomPlot, so that they
# build, and are tested, without them; ui/dialogs includes nothing of ui/views (issue 39); and
# drawing needs no window state: the command line, the Python module and the figure builders
# name no ExplorerState (issue 39; they edit and draw from ExplorerValues / FigureState).
# Run as: cmake -DUI_DIR=<ui> -DAPP_DIR=<app> -DPYTHON_DIR=<python> -P layering.cmake
# A line breaking the rule is named with its file and line; any such line fails the test.
if(NOT UI_DIR)
  message(FATAL_ERROR "layering.cmake: pass -DUI_DIR=<the ui folder>")
endif()
set(forbidden
  [=[#include[ \t]*["<](figures|views|dialogs|widgets)/]=]
  [=[#include[ \t]*<(QtWidgets|QtPrintSupport|QtOpenGLWidgets)(/|>)]=]
  [=[#include[ \t]*<Q(Widget|Application|Dialog|MainWindow|Label|PushButton|ComboBox|LineEdit|Action|Menu|MessageBox|FileDialog|AbstractButton|Layout|BoxLayout|GridLayout|ScrollArea|SpinBox|CheckBox|ToolButton|TabWidget|Splitter|StyleOption|Style)>]=]
  [=[#include[ \t]*[<"]qcustomplot\.h[>"]]=])
file(GLOB_RECURSE sources "${UI_DIR}/state/*" "${UI_DIR}/compute/*")
list(LENGTH sources count)
if(count LESS 10)
  message(FATAL_ERROR "layering.cmake: only ${count} files under ${UI_DIR}/state and compute")
endif()
set(problems 0)
foreach(source IN LISTS sources)
  file(STRINGS "${source}" lines)
  set(number 0)
  foreach(line IN LISTS lines)
    math(EXPR number "${number} + 1")
    foreach(pattern IN LISTS forbidden)
      if(line MATCHES "${pattern}")
        file(RELATIVE_PATH where "${UI_DIR}/.." "${source}")
        message(SEND_ERROR "${where}:${number}: the model layer may not include this: ${line}")
        math(EXPR problems "${problems} + 1")
      endif()
    endforeach()
  endforeach()
endforeach()
if(problems GREATER 0)
  message(FATAL_ERROR "${problems} include(s) break the model layer's layering (ui/CMakeLists.txt)")
endif()
message(STATUS "layering: ${count} files of ui/state and ui/compute include only what pe_model links")

# Dialogs are below the views (issue 39): a dialog gets what it needs (the state, the scheduler,
# a callback) from whoever opens it, and includes nothing of ui/views.
file(GLOB dialogs "${UI_DIR}/dialogs/*")
foreach(source IN LISTS dialogs)
  file(STRINGS "${source}" lines)
  set(number 0)
  foreach(line IN LISTS lines)
    math(EXPR number "${number} + 1")
    if(line MATCHES [=[#include[ \t]*["<]views/]=])
      file(RELATIVE_PATH where "${UI_DIR}/.." "${source}")
      message(SEND_ERROR "${where}:${number}: a dialog may not include a view: ${line}")
      math(EXPR problems "${problems} + 1")
    endif()
  endforeach()
endforeach()
if(problems GREATER 0)
  message(FATAL_ERROR "${problems} include(s) from ui/dialogs into ui/views")
endif()
message(STATUS "layering: ui/dialogs includes nothing of ui/views")

# Drawing without the window's state (issue 39): `pescope export`, `pescope data`, the lesson
# commands, Python's pescope.figure and every figure builder take plain values. The exceptions
# are the window's own: the command that starts it, and the animation the window plays
# (AnimationJob; FigureAnimation::apply moving the live state for the Motion bar).
if(NOT APP_DIR OR NOT PYTHON_DIR)
  message(FATAL_ERROR "layering.cmake: pass -DAPP_DIR=<app> -DPYTHON_DIR=<python>")
endif()
file(GLOB drawing "${APP_DIR}/*.cpp" "${APP_DIR}/*.h" "${PYTHON_DIR}/*.cpp" "${PYTHON_DIR}/*.h"
  "${UI_DIR}/figures/*")
list(FILTER drawing EXCLUDE REGEX "/(guicommand|animationjob|figureanimation)\\.(h|cpp)$")
list(LENGTH drawing count)
if(count LESS 40)
  message(FATAL_ERROR "layering.cmake: only ${count} files of app, python and ui/figures")
endif()
foreach(source IN LISTS drawing)
  file(STRINGS "${source}" lines)
  set(number 0)
  foreach(line IN LISTS lines)
    math(EXPR number "${number} + 1")
    if(line MATCHES [=[ExplorerState|state/explorerstate\.h]=])
      file(RELATIVE_PATH where "${UI_DIR}/.." "${source}")
      message(SEND_ERROR "${where}:${number}: drawing takes plain values, not the window's state: ${line}")
      math(EXPR problems "${problems} + 1")
    endif()
  endforeach()
endforeach()
if(problems GREATER 0)
  message(FATAL_ERROR "${problems} line(s) of the command line, Python or figures name ExplorerState")
endif()
message(STATUS "layering: ${count} files of app, python and ui/figures draw without ExplorerState")

# The dependencies between ui/'s units (no cycle, no folder using one above it, no function
# re-declared instead of included) are tests/layering.py's (CTest 'layering_units', issue 47).
