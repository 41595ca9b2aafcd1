// The decoded terminal input (`TerminalInput`, `KeyEvent`, `TerminalInputDecoder`…) lives in
// SybilTerminalInput so the fuzz build can take it alone; the app's users see it through SybilTUI.
@_exported import SybilTerminalInput
