/// Permission to load one older page of a host, issued only by ``WorkspaceChatScreenModel``
/// when ``SybilTimeline/OlderPageTrigger`` (or the first-display cover) allows it. Its
/// initialiser is internal, so code outside this module cannot load older pages around the
/// gate (1,800 pt, 0.25 s, 8 s); inside it, only the screen model creates permits.
///
/// A permit is good for the page before the cursor it was issued for: once that page is
/// prepended the host's cursor moves on and the permit is spent.
public struct OlderPagePermit: Sendable, Hashable {
    /// The host's oldest cursor when the permit was issued.
    /// (The memberwise initialiser is internal: only this module issues permits.)
    public let cursor: String
}
