# The model layer's layering (issue 30): ui/state and ui/compute (pe_model) include nothing from
# ui's views, dialogs, widgets or figures, and neither Qt Widgets nor QCustomPlot, so that they
# build, and are tested, without them; and ui/dialogs includes nothing of ui/views (issue 39). Run as: cmake -DUI_DIR=<ui> -P layering.cmake
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
