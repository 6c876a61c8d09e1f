"""What the tests share: fakes (a scripted LLM server, sandbox, judge and runner), helpers
(stores, pools, the API in-process) and shared programs, by topic. Fixtures stay in the
conftest files and call into these modules; test modules import only from here."""
