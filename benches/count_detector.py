"""A stand-in detector for measuring review volume, not accuracy.

Serves the OpenAI-compatible chat completions API on 127.0.0.1:PORT, answers
every call {"verdict": "harmless"}, and counts calls and user-message bytes:
GET / returns the counts, GET /reset returns them and starts again. Used by
benches/review-volume.sh.
"""
import json, sys, threading
from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler
stats={'calls':0,'bytes':0}
lock=threading.Lock()
class H(BaseHTTPRequestHandler):
    protocol_version='HTTP/1.1'
    def do_POST(self):
        n=int(self.headers.get('content-length',0)); body=self.rfile.read(n)
        try:
            j=json.loads(body); user=j['messages'][-1]['content']
        except Exception: user=''
        with lock:
            stats['calls']+=1; stats['bytes']+=len(user.encode())
        out=json.dumps({"choices":[{"message":{"role":"assistant","content":"{\"verdict\": \"harmless\"}"},"finish_reason":"stop"}],"usage":{"prompt_tokens":len(user)//4,"completion_tokens":5}}).encode()
        self.send_response(200); self.send_header('Content-Type','application/json'); self.send_header('Content-Length',str(len(out))); self.end_headers(); self.wfile.write(out)
    def do_GET(self):
        out=json.dumps(stats).encode()
        self.send_response(200); self.send_header('Content-Length',str(len(out))); self.end_headers(); self.wfile.write(out)
        if self.path=='/reset':
            with lock: stats['calls']=0; stats['bytes']=0
    def log_message(self,*a): pass
ThreadingHTTPServer(('127.0.0.1',int(sys.argv[1])),H).serve_forever()
