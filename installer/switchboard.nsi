; Windows installer for Switchboard: per-user (no administrator rights), Start-menu shortcut, optional
; desktop shortcut, optional start with Windows (the tray), the .mcpb (and older .dxt) file type opening
; Switchboard's install screen, an uninstaller and version resources.
;
;   makensis -DVERSION=0.1.0 -DPAYLOAD=dist\switchboard -DICON=build\icons\switchboard.ico
;            -DOUTFILE=dist\Switchboard-0.1.0-windows-x86_64-setup.exe installer\switchboard.nsi
;
; PAYLOAD is PyInstaller's one-folder build (switchboard.exe and _internal\). VERSION comes from
; pyproject.toml (packaging/build.sh and the release workflow pass it). Optional: -DCOMPRESSOR=off for a
; fast compile (CI's stand-in check; or zlib, bzip2), -DSIGN_COMMAND="..." to sign the uninstaller and the installer with
; your certificate (see README.md in this folder).

Unicode true
ManifestDPIAware true
RequestExecutionLevel user

!ifndef VERSION
  !error "pass -DVERSION=x.y.z (the version in pyproject.toml)"
!endif
!ifndef PAYLOAD
  !error "pass -DPAYLOAD=<folder of the PyInstaller one-folder build>"
!endif
!ifndef OUTFILE
  !define OUTFILE "Switchboard-${VERSION}-windows-x86_64-setup.exe"
!endif
!ifndef VERSION4
  !define VERSION4 "${VERSION}.0"
!endif
!ifndef EXE
  !define EXE "switchboard.exe"
!endif
!ifndef ICON
  !error "pass -DICON=<switchboard.ico> (packaging/render.py writes build/icons/switchboard.ico)"
!endif
!ifdef COMPRESSOR
  !if "${COMPRESSOR}" == "off"
    SetCompress off
  !else
    SetCompressor /SOLID ${COMPRESSOR}
  !endif
!else
  SetCompressor /SOLID lzma
!endif

!define APP "Switchboard"
!define APP_ID "app.switchboard.Switchboard"
!define PUBLISHER "Switchboard developers"
!define UNINSTALL_KEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\${APP_ID}"
!define RUN_KEY "Software\Microsoft\Windows\CurrentVersion\Run"
; MCP Bundles: a per-user ProgID under HKCU\Software\Classes (no administrator rights needed).
!define MCPB_PROGID "Switchboard.mcpb"
!define CLASSES "Software\Classes"

!include "MUI2.nsh"
!include "FileFunc.nsh"

; EXT opens with the MCP Bundle ProgID; "Open with" lists Switchboard; the MIME type is recorded.
!macro RegisterExtension EXT
  WriteRegStr HKCU "${CLASSES}\${EXT}" "" "${MCPB_PROGID}"
  WriteRegStr HKCU "${CLASSES}\${EXT}" "Content Type" "application/x-mcpb"
  WriteRegStr HKCU "${CLASSES}\${EXT}\OpenWithProgids" "${MCPB_PROGID}" ""
!macroend

; Undo RegisterExtension, leaving EXT alone when another program has taken it over since.
!macro UnregisterExtension EXT
  DeleteRegValue HKCU "${CLASSES}\${EXT}\OpenWithProgids" "${MCPB_PROGID}"
  ReadRegStr $0 HKCU "${CLASSES}\${EXT}" ""
  StrCmp $0 "${MCPB_PROGID}" 0 +3
    DeleteRegValue HKCU "${CLASSES}\${EXT}" ""
    DeleteRegValue HKCU "${CLASSES}\${EXT}" "Content Type"
  DeleteRegKey /ifempty HKCU "${CLASSES}\${EXT}\OpenWithProgids"
  DeleteRegKey /ifempty HKCU "${CLASSES}\${EXT}"
!macroend

Name "${APP} ${VERSION}"
OutFile "${OUTFILE}"
InstallDir "$LOCALAPPDATA\Programs\${APP}"
InstallDirRegKey HKCU "Software\${APP}" "InstallDir"
BrandingText "${APP} ${VERSION}"

; Version resources of setup.exe (switchboard.exe gets its own from PyInstaller's version file).
VIProductVersion "${VERSION4}"
VIFileVersion "${VERSION4}"
VIAddVersionKey /LANG=1033 "ProductName" "${APP}"
VIAddVersionKey /LANG=1033 "ProductVersion" "${VERSION}"
VIAddVersionKey /LANG=1033 "FileVersion" "${VERSION}"
VIAddVersionKey /LANG=1033 "FileDescription" "${APP} ${VERSION} setup"
VIAddVersionKey /LANG=1033 "CompanyName" "${PUBLISHER}"
VIAddVersionKey /LANG=1033 "LegalCopyright" "MIT License"

!ifdef SIGN_COMMAND
  ; %1 is the file to sign; makensis runs it on the finished installer and uninstaller.
  !finalize '${SIGN_COMMAND} "%1"'
  !uninstfinalize '${SIGN_COMMAND} "%1"'
!endif

!define MUI_ICON "${ICON}"
!define MUI_UNICON "${ICON}"
!define MUI_ABORTWARNING
!define MUI_FINISHPAGE_RUN "$INSTDIR\${EXE}"
!define MUI_FINISHPAGE_RUN_TEXT "Start ${APP} now"

!insertmacro MUI_PAGE_WELCOME
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_COMPONENTS
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES
!insertmacro MUI_LANGUAGE "English"

Section "${APP} (required)" SecApp
  SectionIn RO
  SetOutPath "$INSTDIR"
  ; A previous version's files go first, so a removed library does not linger.
  RMDir /r "$INSTDIR\_internal"
  File /r "${PAYLOAD}\*"
  WriteUninstaller "$INSTDIR\Uninstall.exe"
  WriteRegStr HKCU "Software\${APP}" "InstallDir" "$INSTDIR"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayName" "${APP}"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "Publisher" "${PUBLISHER}"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayIcon" "$INSTDIR\${EXE}"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "UninstallString" '"$INSTDIR\Uninstall.exe"'
  WriteRegStr HKCU "${UNINSTALL_KEY}" "QuietUninstallString" '"$INSTDIR\Uninstall.exe" /S'
  WriteRegDWORD HKCU "${UNINSTALL_KEY}" "NoModify" 1
  WriteRegDWORD HKCU "${UNINSTALL_KEY}" "NoRepair" 1
  ${GetSize} "$INSTDIR" "/S=0K" $0 $1 $2
  IntFmt $0 "0x%08X" $0
  WriteRegDWORD HKCU "${UNINSTALL_KEY}" "EstimatedSize" "$0"
SectionEnd

Section "Start menu shortcut" SecStartMenu
  SectionIn RO
  CreateShortcut "$SMPROGRAMS\${APP}.lnk" "$INSTDIR\${EXE}" "" "$INSTDIR\${EXE}" 0
SectionEnd

Section "Open MCP Bundles (.mcpb) with ${APP}" SecMcpb
  WriteRegStr HKCU "${CLASSES}\${MCPB_PROGID}" "" "MCP Bundle"
  WriteRegStr HKCU "${CLASSES}\${MCPB_PROGID}\DefaultIcon" "" '"$INSTDIR\${EXE}",0'
  WriteRegStr HKCU "${CLASSES}\${MCPB_PROGID}\shell\open\command" "" '"$INSTDIR\${EXE}" "%1"'
  !insertmacro RegisterExtension ".mcpb"
  !insertmacro RegisterExtension ".dxt"
  ; Explorer re-reads the associations (SHCNE_ASSOCCHANGED).
  System::Call 'shell32::SHChangeNotify(i 0x08000000, i 0, p 0, p 0)'
SectionEnd

Section /o "Desktop shortcut" SecDesktop
  CreateShortcut "$DESKTOP\${APP}.lnk" "$INSTDIR\${EXE}" "" "$INSTDIR\${EXE}" 0
SectionEnd

Section /o "Start with Windows (in the tray)" SecAutostart
  WriteRegStr HKCU "${RUN_KEY}" "${APP}" '"$INSTDIR\${EXE}" --background'
SectionEnd

!insertmacro MUI_FUNCTION_DESCRIPTION_BEGIN
  !insertmacro MUI_DESCRIPTION_TEXT ${SecApp} "The application (installed for you only; no administrator rights)."
  !insertmacro MUI_DESCRIPTION_TEXT ${SecStartMenu} "A Start-menu entry for ${APP}."
  !insertmacro MUI_DESCRIPTION_TEXT ${SecMcpb} "Double-clicking an MCP Bundle (.mcpb) opens its install screen in ${APP}."
  !insertmacro MUI_DESCRIPTION_TEXT ${SecDesktop} "A shortcut on the desktop."
  !insertmacro MUI_DESCRIPTION_TEXT ${SecAutostart} "Start ${APP} in the system tray when you sign in."
!insertmacro MUI_FUNCTION_DESCRIPTION_END

Section "Uninstall"
  DeleteRegValue HKCU "${RUN_KEY}" "${APP}"
  !insertmacro UnregisterExtension ".mcpb"
  !insertmacro UnregisterExtension ".dxt"
  DeleteRegKey HKCU "${CLASSES}\${MCPB_PROGID}"
  System::Call 'shell32::SHChangeNotify(i 0x08000000, i 0, p 0, p 0)'
  Delete "$SMPROGRAMS\${APP}.lnk"
  Delete "$DESKTOP\${APP}.lnk"
  RMDir /r "$INSTDIR\_internal"
  Delete "$INSTDIR\${EXE}"
  Delete "$INSTDIR\Uninstall.exe"
  RMDir "$INSTDIR"
  DeleteRegKey HKCU "${UNINSTALL_KEY}"
  DeleteRegKey HKCU "Software\${APP}"
  ; Settings, conversations and keyring entries stay: they belong to the user, not to the installation.
SectionEnd
