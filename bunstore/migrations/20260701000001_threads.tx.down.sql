SET LOCAL search_path TO {{.Schema}};
DROP TABLE IF EXISTS attachments, messages, threads;
DROP FUNCTION IF EXISTS clientstatus_from_thread(), clientstatus_pass_down(), clientstatus_count_messages(),
	clientstatus_touch_message();
