import SybilHTTP

/// The body of a raw `POST agent/uploads` (the body is the file; `X-Upload-Id`, `X-File-Name`
/// and `Content-Type` name it), taken as it arrives into an ``UploadSpool``: a raw upload is
/// held on disk as a multipart one is. The route's body limit (the largest file) stops it at
/// once; the headers and the per-type limits are checked by the handler, after the body.
struct AgentRawUploadBody: HTTPRequestBodyConsumer {
    /// Where the file goes.
    let spool: UploadSpool

    mutating func consume(_ bytes: [UInt8]) throws(HTTPBodyRefusal) {
        do {
            try spool.append(bytes)
        } catch {
            throw HTTPBodyRefusal(response: error.response)
        }
    }

    mutating func finish() throws(HTTPBodyRefusal) {}
}
