/// A workspace database written by the server before `WorkspaceStore` was split by job
/// (`sqlite3 .dump`, the seeded history trimmed to a few rows per session): sess-42 has a
/// finished run with a steer, sess-60 a run left running and one queued behind it (the server
/// was killed), the ledger five calls, and uploads finished, open and cancelled.
enum WorkspaceStoreFixture {
    static let beforeSplit = #"""
        PRAGMA foreign_keys=OFF;
        BEGIN TRANSACTION;
        CREATE TABLE schema_migrations (name TEXT PRIMARY KEY, applied_at INTEGER);
        INSERT INTO schema_migrations VALUES('workspace-1',1796097364);
        INSERT INTO schema_migrations VALUES('workspace-2-runs',1796097364);
        INSERT INTO schema_migrations VALUES('workspace-3-row-operations',1796097364);
        INSERT INTO schema_migrations VALUES('workspace-4-epochs',1796097364);
        CREATE TABLE ws_sessions (
            desktop_id TEXT NOT NULL, project_id TEXT NOT NULL, session_id TEXT NOT NULL,
            title TEXT NOT NULL, updated_at INTEGER NOT NULL,
            PRIMARY KEY (desktop_id, project_id, session_id)
        );
        INSERT INTO ws_sessions VALUES('desk-1','proj-app','sess-42','Fix login',1764403766000);
        INSERT INTO ws_sessions VALUES('desk-1','proj-app','sess-43','New chat',1764407366000);
        INSERT INTO ws_sessions VALUES('desk-1','proj-site','sess-50','Landing page',1764410974000);
        INSERT INTO ws_sessions VALUES('desk-2','proj-ci','sess-60','Nightly build',1764414578000);
        CREATE TABLE ws_rows (
            sequence INTEGER PRIMARY KEY AUTOINCREMENT,
            desktop_id TEXT NOT NULL, project_id TEXT NOT NULL, session_id TEXT NOT NULL,
            thread_id TEXT NOT NULL DEFAULT '',
            type TEXT NOT NULL, text TEXT NOT NULL, timestamp INTEGER NOT NULL,
            subagent_thread_id TEXT
        , operation_id TEXT);
        INSERT INTO ws_rows VALUES(1,'desk-1','proj-app','sess-42','','user','Fix login: question 1',1764403601000,NULL,NULL);
        INSERT INTO ws_rows VALUES(2,'desk-1','proj-app','sess-42','','thinking','Reading the question: Fix login: question 1',1764403602000,NULL,NULL);
        INSERT INTO ws_rows VALUES(3,'desk-1','proj-app','sess-42','','activity','ls Fix',1764403603000,NULL,NULL);
        INSERT INTO ws_rows VALUES(4,'desk-1','proj-app','sess-42','','agent-reply','This one is quick. The timeline keeps the newest window and loads older pages on demand. You asked about “Fix login: question 1”. Happy to dig deeper.',1764403604000,'thr-7',NULL);
        INSERT INTO ws_rows VALUES(5,'desk-1','proj-app','sess-42','thr-7','activity','Subagent step 1',1764403604100,NULL,NULL);
        INSERT INTO ws_rows VALUES(6,'desk-1','proj-app','sess-42','thr-7','agent-reply','Subagent step 2',1764403604200,NULL,NULL);
        INSERT INTO ws_rows VALUES(229,'desk-2','proj-ci','sess-60','','user','Nightly build: question 1',1764414575000,NULL,NULL);
        INSERT INTO ws_rows VALUES(230,'desk-2','proj-ci','sess-60','','thinking','Reading the question: Nightly build: question 1',1764414576000,NULL,NULL);
        INSERT INTO ws_rows VALUES(231,'desk-2','proj-ci','sess-60','','activity','ls Nightly',1764414577000,NULL,NULL);
        INSERT INTO ws_rows VALUES(232,'desk-2','proj-ci','sess-60','','agent-reply','Here is what I found. The overlay shows the running turn until history settles it. You asked about “Nightly build: question 1”. Happy to dig deeper.',1764414578000,NULL,NULL);
        INSERT INTO ws_rows VALUES(233,'desk-1','proj-app','sess-42','','user','First question',1700000001000,NULL,'op-1');
        INSERT INTO ws_rows VALUES(234,'desk-1','proj-app','sess-42','','agent-reply','The answer',1700000003000,NULL,NULL);
        INSERT INTO ws_rows VALUES(235,'desk-1','proj-app','sess-42','','user','Steer it',1700000002000,NULL,'op-2');
        CREATE TABLE ws_calls (call_key TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, result TEXT NOT NULL);
        INSERT INTO ws_calls VALUES('run.codexChatSubmit:op-1:m1','fp-1','{"runId":"run-1"}');
        INSERT INTO ws_calls VALUES('run.codexChatSubmit:op-2:m1','fp-2','{"runId":"run-1"}');
        INSERT INTO ws_calls VALUES('run.codexChatStop:run-x','fp-stop','{"stopped":false}');
        INSERT INTO ws_calls VALUES('run.codexChatSubmit:op-3:m1','fp-3','{"runId":"run-2"}');
        INSERT INTO ws_calls VALUES('run.codexChatSubmit:op-4:m1','fp-4','{"runId":"run-3"}');
        CREATE TABLE ws_uploads (
            upload_id TEXT PRIMARY KEY, upload_key TEXT NOT NULL UNIQUE,
            desktop_id TEXT NOT NULL, project_id TEXT NOT NULL, session_id TEXT NOT NULL,
            file_name TEXT NOT NULL, mime_type TEXT NOT NULL, path TEXT NOT NULL, size INTEGER NOT NULL,
            chunk_size INTEGER NOT NULL, state TEXT NOT NULL DEFAULT 'open', sha256 TEXT
        );
        INSERT INTO ws_uploads VALUES('upl-1','key-1','desk-1','proj-app','sess-42','notes.txt','text/plain','notes.txt',5,4,'finished','2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824');
        INSERT INTO ws_uploads VALUES('upl-2','key-2','desk-2','proj-ci','sess-60','log.bin','application/octet-stream','logs/log.bin',6,4,'open',NULL);
        INSERT INTO ws_uploads VALUES('upl-3','key-3','desk-1','proj-app','sess-42','gone.txt','text/plain','gone.txt',1,4,'cancelled',NULL);
        CREATE TABLE ws_upload_chunks (
            upload_id TEXT NOT NULL, chunk_index INTEGER NOT NULL, bytes BLOB NOT NULL,
            PRIMARY KEY (upload_id, chunk_index)
        );
        INSERT INTO ws_upload_chunks VALUES('upl-1',0,X'68656c6c');
        INSERT INTO ws_upload_chunks VALUES('upl-1',1,X'6f');
        INSERT INTO ws_upload_chunks VALUES('upl-2',1,X'00ff');
        CREATE TABLE ws_runs (
            run_id TEXT PRIMARY KEY, number INTEGER NOT NULL UNIQUE,
            desktop_id TEXT NOT NULL, project_id TEXT NOT NULL, session_id TEXT NOT NULL,
            state TEXT NOT NULL, created_at INTEGER NOT NULL
        );
        INSERT INTO ws_runs VALUES('run-1',1,'desk-1','proj-app','sess-42','finished',1700000001000);
        INSERT INTO ws_runs VALUES('run-2',2,'desk-2','proj-ci','sess-60','running',1700000005000);
        INSERT INTO ws_runs VALUES('run-3',3,'desk-2','proj-ci','sess-60','queued',1700000006000);
        CREATE TABLE ws_run_inputs (
            run_id TEXT NOT NULL, position INTEGER NOT NULL,
            operation_id TEXT NOT NULL, text TEXT NOT NULL, timestamp INTEGER NOT NULL,
            PRIMARY KEY (run_id, position)
        );
        INSERT INTO ws_run_inputs VALUES('run-1',0,'op-1','First question',1700000001000);
        INSERT INTO ws_run_inputs VALUES('run-1',1,'op-2','Steer it',1700000002000);
        INSERT INTO ws_run_inputs VALUES('run-2',0,'op-3','Interrupted',1700000005000);
        INSERT INTO ws_run_inputs VALUES('run-3',0,'op-4','Queued behind',1700000006000);
        CREATE TABLE ws_boots (boot INTEGER PRIMARY KEY);
        INSERT INTO ws_boots VALUES(1700000000000);
        CREATE TABLE ws_epochs (
            desktop_id TEXT NOT NULL, project_id TEXT NOT NULL, session_id TEXT NOT NULL,
            epoch INTEGER NOT NULL, PRIMARY KEY (desktop_id, project_id, session_id)
        );
        INSERT INTO ws_epochs VALUES('desk-1','proj-app','sess-42',2);
        DELETE FROM sqlite_sequence;
        INSERT INTO sqlite_sequence VALUES('ws_rows',235);
        CREATE INDEX ws_rows_by_chat ON ws_rows (desktop_id, project_id, session_id, thread_id, sequence);
        CREATE INDEX ws_runs_by_state ON ws_runs (state, number);
        COMMIT;
        """#
}
