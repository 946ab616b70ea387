# Python (standard library only): sign a visitor JWT on your server, never in the browser.
import base64, hashlib, hmac, json, os, time

def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

def visitor_jwt(customer_id, email=None, name=None):
    header = b64(json.dumps({"alg": "HS256", "typ": "JWT", "kid": "idk_replace_with_your_key_id"}).encode())
    claims = {"sub": customer_id, "exp": int(time.time()) + 3600}  # exp: required, at most 24 h ahead
    if email:
        claims["email"] = email
    if name:
        claims["name"] = name
    payload = b64(json.dumps(claims).encode())
    secret = os.environ["CONVERSE_IDENTITY_SECRET"].encode()  # the isk_... secret
    signature = hmac.new(secret, f"{header}.{payload}".encode(), hashlib.sha256).digest()
    return f"{header}.{payload}.{b64(signature)}"
