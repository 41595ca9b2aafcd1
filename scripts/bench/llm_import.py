"""Logs a corpus of chats into an llm log database through llm's own logging code, as if
each question had been asked with `llm` and answered: usage: llm_import.py CORPUS.jsonl LOGS.db

CORPUS.jsonl holds one chat per line: {"title": ..., "pairs": [[question, answer], ...]}.
Each chat becomes one llm conversation. The database is written with synchronous=OFF and
the schema migrated once, only to make the import fast; the rows are the ones llm writes."""
import json
import sys
import time

import llm
import llm.logs
import sqlite_utils
from llm.migrations import migrate


class CorpusModel(llm.Model):
    """A model that answers with the corpus's next answer."""
    model_id = "sybil-corpus"
    can_stream = False
    answer = ""

    def execute(self, prompt, stream, response, conversation):
        yield CorpusModel.answer


def main():
    corpus, path = sys.argv[1], sys.argv[2]
    db = sqlite_utils.Database(path)
    migrate(db)
    db.conn.execute("PRAGMA synchronous=OFF")
    llm.logs.migrate = lambda _db: None
    model = CorpusModel()
    start = time.monotonic()
    turns = 0
    with open(corpus, encoding="utf-8") as lines:
        for line in lines:
            chat = json.loads(line)
            conversation = model.conversation()
            for question, answer in chat["pairs"]:
                CorpusModel.answer = answer
                response = conversation.prompt(question)
                response.text()
                response.log_to_db(db)
                turns += 1
    print(f"llm_import: {turns} turns ({2 * turns} messages) logged in {time.monotonic() - start:.1f} s",
          file=sys.stderr)


main()
