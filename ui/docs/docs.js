// The API reference: Swagger UI over the contract the mock serves (/openapi.json), with "Try it
// out" pointed at this mock and buttons that authorize it with a token of the seeded company.
// Plain script (no bundler): swagger-ui-bundle.js is copied from swagger-ui-dist by
// scripts/build-ui.mjs. Credentials come from the control plane, which answers them to the mock's
// own pages only (src/admin/admin-access.ts).
(function () {
  'use strict';
  var mockRoot = new URL('../', location.href);
  var status = document.getElementById('token-status');
  var ui;

  function say(text) {
    status.textContent = text;
  }

  function basic(company) {
    return 'Basic ' + btoa(company.clientId + ':' + company.clientSecret);
  }

  function seededCompany() {
    return fetch(new URL('__admin/credentials', mockRoot), { headers: { 'X-Shipmock-Admin': '1' } }).then(function (response) {
      if (!response.ok) throw new Error('the control plane answered ' + response.status + ' (it answers pages on this machine only)');
      return response.json().then(function (credentials) {
        return credentials.companies[0];
      });
    });
  }

  function token(path, company) {
    return fetch(new URL(path, mockRoot), {
      method: 'POST',
      headers: { Authorization: basic(company), 'Content-Type': 'application/json' },
      body: JSON.stringify({ grantType: 'client_credentials' }),
    }).then(function (response) {
      return response.json().then(function (body) {
        if (!response.ok) throw new Error(body.detail || body.title || 'HTTP ' + response.status);
        return body.accessToken;
      });
    });
  }

  function authorize(level, accessToken) {
    // Every bearer scheme the contract declares gets the token; "Try it out" sends it.
    var schemes = (ui.specSelectors.specJson().toJS().components || {}).securitySchemes || {};
    Object.keys(schemes).forEach(function (name) {
      if (schemes[name].type === 'http' && schemes[name].scheme === 'bearer') ui.preauthorizeApiKey(name, accessToken);
    });
    say(level + ' token set for "Try it out" (expires with the mock clock).');
  }

  document.getElementById('company-token').addEventListener('click', function () {
    say('Fetching…');
    seededCompany()
      .then(function (company) {
        return token('v1/companies/' + company.companyId + '/tokens', company);
      })
      .then(function (accessToken) {
        authorize('Company', accessToken);
      })
      .catch(function (error) {
        say('No token: ' + error.message);
      });
  });

  document.getElementById('account-token').addEventListener('click', function () {
    var accountId = document.getElementById('account-id').value.trim();
    if (!accountId) return say('Enter an account id first (create one with POST /v1/accounts).');
    say('Fetching…');
    seededCompany()
      .then(function (company) {
        return token('v1/accounts/' + encodeURIComponent(accountId) + '/tokens', company);
      })
      .then(function (accessToken) {
        authorize('Account', accessToken);
      })
      .catch(function (error) {
        say('No token: ' + error.message);
      });
  });

  fetch(new URL('openapi.json', mockRoot))
    .then(function (response) {
      return response.json();
    })
    .then(function (spec) {
      // "Try it out" goes to this mock, whatever servers the contract names.
      spec.servers = [{ url: mockRoot.href.replace(/\/$/, ''), description: 'this shipmock' }];
      // Swagger UI renders only the OpenAPI base dialect and warns about any other; the
      // contract names plain JSON Schema 2020-12 (for Ajv and Prism), which it reads alike.
      delete spec.jsonSchemaDialect;
      ui = SwaggerUIBundle({
        spec: spec,
        dom_id: '#swagger',
        deepLinking: true,
        tryItOutEnabled: true,
        persistAuthorization: false,
        displayRequestDuration: true,
        filter: true,
        validatorUrl: null,
      });
    })
    .catch(function (error) {
      document.getElementById('swagger').textContent = 'The contract could not be loaded: ' + error.message;
    });
})();
