; An installer that registers a performance-counter provider with the
; regtoolnsis plugin, and an uninstaller that removes it: the sample
; provider ReplicationPerf of ini-samples (four languages).
;
;   makensis -DPLUGIN_DIR=DIR -DSAMPLES=DIR -DOUTFILE=setup.exe example.nsi
;   makensis -DTARGET=amd64-unicode -DPLUGIN_DIR=DIR ... (64-bit)
;
; PLUGIN_DIR holds regtoolnsis.dll (the release zip's, or
; build/windows32/), SAMPLES the INI and its symbol file. As with lodctr,
; the provider's service must exist (with its Performance key) before
; Install: a real installer creates it first, e.g. with its own service
; installation, and the provider's DLL with it.
;
; Silent runs: setup.exe /S; uninstall.exe /S _?=INSTDIR (in place, so the
; uninstaller's exit code is the caller's). A failure sets exit code 2.

Unicode true
!ifndef PLUGIN_DIR
!define PLUGIN_DIR "."
!endif
!ifndef SAMPLES
!define SAMPLES "."
!endif
!ifndef OUTFILE
!define OUTFILE "regtool-example-setup.exe"
!endif
; TARGET=amd64-unicode: a 64-bit installer, with the 64-bit build of the
; plugin (build/windows/nsis/); without it, x86-unicode, as makensis
; builds by default.
!ifdef TARGET
Target ${TARGET}
!addplugindir /${TARGET} "${PLUGIN_DIR}"
!else
!addplugindir /x86-unicode "${PLUGIN_DIR}"
!endif

Name "regtool example provider"
OutFile "${OUTFILE}"
InstallDir "$PROGRAMFILES\regtool-example"
RequestExecutionLevel admin
ShowInstDetails show
ShowUninstDetails show

Section "Provider"
    SetOutPath "$INSTDIR"
    File "${SAMPLES}/replication.ini"
    File "${SAMPLES}/ReplicationOffsets.h"
    ; Names and help texts in every language of the INI, in one commit,
    ; in the 64-bit registry's Perflib even from this 32-bit installer.
    regtoolnsis::Install "$INSTDIR\replication.ini"
    Pop $0
    StrCmp $0 "0" installed
        DetailPrint "Cannot register the counters: $0"
        SetErrorLevel 2
        Abort "Cannot register the counters: $0"
    installed:
    DetailPrint "Counters of ReplicationPerf registered"
    WriteUninstaller "$INSTDIR\uninstall.exe"
SectionEnd

Section "Uninstall"
    regtoolnsis::Uninstall "ReplicationPerf"
    Pop $0
    StrCmp $0 "0" removed
        DetailPrint "Cannot remove the counters: $0"
        SetErrorLevel 2
        Abort "Cannot remove the counters: $0"
    removed:
    Delete "$INSTDIR\replication.ini"
    Delete "$INSTDIR\ReplicationOffsets.h"
    Delete "$INSTDIR\uninstall.exe"
    RMDir "$INSTDIR"
SectionEnd
