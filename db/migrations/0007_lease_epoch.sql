-- Fencing: the thread's lease epoch. Each run's start raises it and records the value it got; a node that interrupts a
-- run in its owner's place (the owner stopped renewing its lease) raises it too. Every write a run makes compares it
-- with the value of its start, so a node that wakes after losing its lease cannot change the thread any more.
ALTER TABLE chat_threads ADD COLUMN lease_epoch INTEGER NOT NULL DEFAULT 0;
