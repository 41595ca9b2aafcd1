/// A request body refused while it arrived (see ``HTTPRequestBodyConsumer``): the response
/// to answer with, e.g. a 413 or a 400 naming what is wrong.
public struct HTTPBodyRefusal: Error, Sendable {
    /// The answer.
    public var response: HTTPServerResponse

    /// A refusal answered with `response`.
    public init(response: HTTPServerResponse) {
        self.response = response
    }
}
