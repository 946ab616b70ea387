// Node (no library): sign a visitor JWT on your server, never in the browser.
const crypto = require('node:crypto');

const b64 = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');

function visitorJwt(customer) {
  const header = b64({ alg: 'HS256', typ: 'JWT', kid: 'idk_replace_with_your_key_id' });
  const payload = b64({
    sub: customer.id, // your customer id
    email: customer.email,
    name: customer.name,
    exp: Math.floor(Date.now() / 1000) + 3600, // required, at most 24 h ahead
  });
  const signature = crypto
    .createHmac('sha256', process.env.CONVERSE_IDENTITY_SECRET) // the isk_… secret
    .update(`${header}.${payload}`)
    .digest('base64url');
  return `${header}.${payload}.${signature}`;
}
