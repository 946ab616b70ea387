/**
 * bench:answers' help-centre sets: how a newcomer asks the example help centre of `npm start`
 * (examples/knowledge/acme-help-center.json, 8 records) in their own words, and what it does not cover.
 * Written by hand for issue 30 before any measurement of the answers bench, not taken from a data set and
 * not from the calibration bench's questions (bench/calibration/help-centre-questions.ts). The held-out
 * batch was written at the same time and is reported on its own; nothing was tuned on it.
 * Each in-scope question names the title of the record that answers it.
 */
export const ANSWERS_DEV_IN_SCOPE: [string, string][] = [
  // Shipping times and costs
  ['how many days until my stuff shows up after I order', 'Shipping times and costs'],
  ['do I have to pay for delivery?', 'Shipping times and costs'],
  ['can I get it tomorrow?', 'Shipping times and costs'],
  ['what does fast shipping cost', 'Shipping times and costs'],
  ['is postage free if I spend enough', 'Shipping times and costs'],
  ['Combien de temps dure la livraison ?', 'Shipping times and costs'],
  // Returns
  ['Can I still return shoes I bought three weeks ago?', 'Returns'],
  ['I bought a jacket that does not fit, can I send it back?', 'Returns'],
  ['changed my mind about a purchase, can I give it back', 'Returns'],
  ['how do I get a return label', 'Returns'],
  ['is there a time limit for bringing things back', 'Returns'],
  ['Wie schicke ich etwas zurück?', 'Returns'],
  // Refunds
  ['when do I get my money after sending something back', 'Refunds'],
  ['how will I be paid back for a return', 'Refunds'],
  ['my refund has not arrived yet, how long does it usually take', 'Refunds'],
  ['will the refund go to my credit card', 'Refunds'],
  ['¿Cuándo recibo mi reembolso?', 'Refunds'],
  // Password reset
  ['I forgot my login details, how do I get back into my account?', 'Password reset'],
  ["can't sign in, forgot my password", 'Password reset'],
  ['how do I change my password', 'Password reset'],
  ['the password link in my email expired', 'Password reset'],
  ['locked out of my account', 'Password reset'],
  ['Wie kann ich mein Passwort zurücksetzen?', 'Password reset'],
  // Store opening hours
  ['when is your shop open', 'Store opening hours'],
  ['are you open on sunday', 'Store opening hours'],
  ['what time does the springfield store close', 'Store opening hours'],
  ['is the store open on bank holidays', 'Store opening hours'],
  ["Quels sont les horaires d'ouverture du magasin ?", 'Store opening hours'],
  // Contact us
  ['what number do I ring for customer service?', 'Contact us'],
  ['how can I talk to someone at acme', 'Contact us'],
  ['what is your support email address', 'Contact us'],
  ['when can I call you', 'Contact us'],
  ['¿Cómo puedo contactar con atención al cliente?', 'Contact us'],
  // Warranty
  ['My kettle stopped working after 8 months. Is that covered?', 'Warranty'],
  ['how long is the guarantee on your products', 'Warranty'],
  ['I dropped my blender and it broke, will you fix it for free?', 'Warranty'],
  ['do I need the receipt for a warranty claim', 'Warranty'],
  ['Wie lange habe ich Garantie?', 'Warranty'],
  // Order tracking
  ['where can I see where my parcel is', 'Order tracking'],
  ['how do I follow my delivery', 'Order tracking'],
  ['I lost my tracking number', 'Order tracking'],
  ['how do i check the status of my order online', 'Order tracking'],
  ['Où en est ma commande ?', 'Order tracking'],
];

export const ANSWERS_DEV_OFF_TOPIC: string[] = [
  'Can I pay with bitcoin?',
  'Do you repair bicycles?',
  'do you sell gift cards',
  'can I get a student discount',
  'do you price match amazon',
  'are your products vegan',
  'can I pick up my order in the store',
  'do you have a loyalty program',
  'what is the capital of australia',
  'tell me a joke',
  'is the blue sofa back in stock',
  'do you ship to the moon',
  'can I pay in instalments',
  'who is the ceo of acme',
  'Akzeptieren Sie PayPal?',
  'Vendez-vous des vélos électriques ?',
  'what is the weather tomorrow',
  'I want to apply for a job at acme',
  'do you do gift wrapping',
  'can I change the colour of my sofa after ordering',
];

/** Written with the dev batch, kept aside: reported as `help_centre_held_out`, never looked at while choosing. */
export const ANSWERS_HELD_OUT_IN_SCOPE: [string, string][] = [
  ['how quick is delivery', 'Shipping times and costs'],
  ['is there a charge for sending my order', 'Shipping times and costs'],
  ['can I return something I have not used', 'Returns'],
  ['what do I do if I want to send an item back', 'Returns'],
  ['how long until my refund shows up', 'Refunds'],
  ['do you refund to paypal or the card I paid with', 'Refunds'],
  ['reset my password please', 'Password reset'],
  ['I cannot remember my password', 'Password reset'],
  ['opening times saturday', 'Store opening hours'],
  ['are you closed on christmas day', 'Store opening hours'],
  ['phone number for help', 'Contact us'],
  ['can I email you', 'Contact us'],
  ['what does the guarantee include', 'Warranty'],
  ['my toaster broke after a year, can I get it replaced?', 'Warranty'],
  ['track my package', 'Order tracking'],
  ['where do I find the tracking link', 'Order tracking'],
  ['Wann bekomme ich mein Geld zurück?', 'Refunds'],
  ['¿Hasta cuándo puedo devolver un artículo?', 'Returns'],
];

export const ANSWERS_HELD_OUT_OFF_TOPIC: string[] = [
  'do you sell spare parts for lawnmowers',
  'can I book a home visit',
  'do you offer financing',
  'is there a discount for nurses',
  'how do I become an affiliate',
  'what is two plus two',
  'Haben Sie einen Newsletter?',
  'can I reserve an item online',
];
