"""The official `openai` Python SDK against `sybil serve`: the model list and one model,
whole replies with usage, max_tokens and stop, a streamed reply with include_usage (a last
chunk with empty choices and the usage), text content parts, and the 400/404 errors the SDK
raises as exceptions. Usage: openai_sdk_client.py BASE_URL TOKEN. Prints "ok" and exits 0
when all hold."""

import sys

import openai

base, token = sys.argv[1], sys.argv[2]
client = openai.OpenAI(base_url=f"{base}/v1", api_key=token, max_retries=0)
question = "Was ist ein Kaltstart?"
messages = [{"role": "user", "content": question}]

ids = [model.id for model in client.models.list()]
assert ids == ["sybil-scripted", "chat-latest"], ids
assert client.models.retrieve("chat-latest").owned_by == "sybil"
try:
    client.models.retrieve("gpt-9")
    raise AssertionError("an unknown model was found")
except openai.NotFoundError as error:
    assert error.body["code"] == "model_not_found", error.body

whole = client.chat.completions.create(model="chat-latest", messages=messages)
text = whole.choices[0].message.content
assert text and whole.choices[0].finish_reason == "stop", whole
assert whole.usage.prompt_tokens == 5, whole.usage
assert whole.usage.total_tokens == whole.usage.prompt_tokens + whole.usage.completion_tokens > 5, whole.usage

cut = client.chat.completions.create(model="sybil-scripted", messages=messages, max_tokens=2, temperature=0.2)
assert cut.choices[0].finish_reason == "length" and cut.usage.completion_tokens == 2, cut
stop_word = text.split(" ")[1]
stopped = client.chat.completions.create(model="sybil-scripted", messages=messages, stop=[stop_word])
assert stopped.choices[0].message.content == text[: text.index(stop_word)], stopped
assert stopped.choices[0].finish_reason == "stop"

parts = client.chat.completions.create(
    model="sybil-scripted", messages=[{"role": "user", "content": [{"type": "text", "text": question}]}]
)
assert parts.choices[0].message.content == text

streamed, usage, finish, ids = "", None, None, set()
for chunk in client.chat.completions.create(
    model="chat-latest", messages=messages, stream=True, stream_options={"include_usage": True}
):
    ids.add(chunk.id)
    if chunk.usage is not None:
        assert chunk.choices == [], chunk
        usage = chunk.usage
        continue
    assert usage is None, "the usage chunk must come last"
    for choice in chunk.choices:
        streamed += choice.delta.content or ""
        finish = choice.finish_reason or finish
assert streamed == text, (streamed, text)
assert finish == "stop"
assert usage is not None and usage.completion_tokens == whole.usage.completion_tokens, usage
assert len(ids) == 1 and next(iter(ids)).startswith("chatcmpl-"), ids

for bad in [{"n": 2}, {"max_tokens": 0}, {"temperature": 2.5}, {"top_p": 1.5}]:
    try:
        client.chat.completions.create(model="sybil-scripted", messages=messages, **bad)
        raise AssertionError(f"{bad} was accepted")
    except openai.BadRequestError as error:
        assert error.body["param"] == next(iter(bad)), error.body

print("ok")
