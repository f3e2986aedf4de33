"""The desktop shell around the window: tray icon, quick prompt, notifications, the single running instance."""
